// A room selling products knows their stock, through the HTTP API with this process as the admission leader:
// it never has more admitted sessions holding no reservation than the units left plus admitBeyondStock, a
// waiting shopper sees the units left (poll and socket, pushed when they change), a session that reserved stops
// counting against the stock, and a unit that comes back (an order ended without a sale, released as the
// worker releases it) admits the next in line.
import { ORDER_STATE_GRACE_SECONDS, releaseOrders } from "@floodgate/reservations";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY, adminHeaders } from "./support/coupon-test-kit.ts";
import { documentedInject, expectProblem, get, post, waitUntil } from "./support/intake-test-kit.ts";
import { createProduct } from "./support/product-test-kit.ts";
import { openTicketSocket } from "./support/ticket-socket.ts";

let env: TestEnvironment;
let app: FastifyInstance;
let productId: string;

beforeAll(async () => {
  env = await createTestEnvironment("waiting-room-stock", { env: { ADMIN_API_KEY: ADMIN_KEY } });
  app = await buildApp(env.config, { logger: false });
  await app.listen({ port: 0, host: "127.0.0.1" });
  productId = (await createProduct(app, { stock: 3, price: 1000 })).id;
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

const baseUrl = () => `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
const roomView = async () => (await get(app, "/v1/rooms/drop", adminHeaders())).json();
const join = async (userId: string) => {
  const response = await post(app, "/v1/rooms/drop/tickets", { userId });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().ticketId as string;
};
const ticket = async (ticketId: string) => (await get(app, `/v1/rooms/drop/tickets/${ticketId}`)).json();
const statuses = async (ticketIds: string[]) =>
  Promise.all(ticketIds.map(async (id) => (await ticket(id)).status as string));
const admittedAmong = async (ticketIds: string[]) =>
  (await statuses(ticketIds)).flatMap((status, i) => (status === "admitted" ? [ticketIds[i]!] : []));
const lastTickAt = async () =>
  Number(await app.redis.hget(app.admission.keys.room("drop").state, "lastTickAt"));
/** Resolves once the leader has ticked the room for a while after `since` (its ticks are ~100 ms apart). */
const ticksAfter = (since: number) =>
  waitUntil(lastTickAt, (at) => at > since + 500, "five more ticks of the room");

describe("a room selling products", () => {
  it("admits no more than the units left plus admitBeyondStock, and shows the units left", async () => {
    const refused = await documentedInject(app, {
      method: "PUT",
      url: "/v1/rooms/drop",
      headers: adminHeaders(),
      payload: {
        mode: "on",
        admitPerSecond: 50,
        sessionSeconds: 600,
        products: [productId],
        admitBeyondStock: -1,
      },
    });
    expectProblem(refused, 400, "validation_error", "admitBeyondStock");
    const defined = await documentedInject(app, {
      method: "PUT",
      url: "/v1/rooms/drop",
      headers: adminHeaders(),
      payload: {
        mode: "on",
        admitPerSecond: 50,
        sessionSeconds: 600,
        products: [productId],
        admitBeyondStock: 1,
      },
    });
    expect(defined.statusCode, defined.body).toBe(201);
    expect(defined.json()).toMatchObject({ admitBeyondStock: 1, products: [productId] });
    const joined: string[] = [];
    for (let i = 0; i < 8; i++) joined.push(await join(`shopper-${i}`));
    // 3 units and a margin of 1: the first 4 in line, in join order, and nobody after them.
    await waitUntil(
      () => admittedAmong(joined),
      (admitted) => admitted.length >= 4,
      "4 admissions",
    );
    await ticksAfter(Date.now());
    expect(await admittedAmong(joined)).toEqual(joined.slice(0, 4));
    expect(await roomView()).toMatchObject({ unitsLeft: 3, waiting: 4 });
    expect(await ticket(joined[4]!)).toMatchObject({ status: "waiting", position: 1, unitsLeft: 3 });
  });

  it("tells a waiting socket the units left as they change, and admits the next in line for a unit that comes back", async () => {
    const joined = await Promise.all(
      Array.from(
        { length: 8 },
        async (_, i) =>
          (await post(app, "/v1/rooms/drop/tickets", { userId: `shopper-${i}` })).json().ticketId as string,
      ),
    );
    const socket = await openTicketSocket(baseUrl(), "drop", joined[5]!, env.serverKey);
    try {
      const first = await socket.next((m) => m.type === "position", "the first position");
      expect(first).toMatchObject({ position: 2, unitsLeft: 3 });

      // An admitted shopper reserves a unit: 2 left, and their session no longer counts against them.
      const first0 = await ticket(joined[0]!);
      const ordered = await post(
        app,
        "/v1/orders",
        { userId: "shopper-0", items: [{ productId, quantity: 1 }] },
        { "admission-token": first0.admissionToken },
      );
      expect(ordered.statusCode, ordered.body).toBe(202);
      const orderId = ordered.json().id as string;
      const told = await socket.next(
        (m) => m.type === "position" && m.unitsLeft === 2,
        "2 units left",
        10_000,
      );
      expect(told.position).toBe(2);
      // 2 left + 1 beyond, and 3 admitted sessions without a reservation: still nobody more.
      await ticksAfter(Date.now());
      expect(await admittedAmong(joined)).toEqual(joined.slice(0, 4));

      // The order ends without a sale (expired, cancelled): its unit comes back, the next in line gets it.
      await releaseOrders(
        app.redis,
        app.queueKeys,
        [{ orderId, userId: "shopper-0", items: [{ productId, quantity: 1 }] }],
        app.config.orderTtlSeconds + ORDER_STATE_GRACE_SECONDS,
      );
      await waitUntil(
        () => admittedAmong(joined),
        (admitted) => admitted.length >= 5,
        "the next admission",
      );
      await ticksAfter(Date.now());
      expect(await admittedAmong(joined)).toEqual(joined.slice(0, 5));
      // First in line now, with the unit back: both pushed (together, or the units a round later).
      await socket.next(
        (m) => m.type === "position" && m.position === 1 && m.unitsLeft === 3,
        "first in line with 3 units left",
        10_000,
      );
    } finally {
      socket.close();
    }
  });
});
