// The sold-out moment of a room selling products, through the HTTP API with this process as the admission
// leader: the room is sold out only when nothing is left and no unpaid unit could come back (an order that
// expires returns its unit and keeps the room open); then every waiting socket is told `sold_out`, a waiting
// ticket reads `sold_out` and a join is refused 410 room_sold_out; a restock reopens it. Orders end as the worker
// ends them (on a connection of its own, as the worker's: not the intake's auto-pipelined one): releaseOrders for
// one that expired, settlePaidOrders (sent again, as a redelivered batch does) for one that was paid.
import { mintJoinPass } from "@floodgate/admission";
import { createRedis, type ScriptedRedis } from "@floodgate/redis-connections";
import { ORDER_STATE_GRACE_SECONDS, releaseOrders, settlePaidOrders } from "@floodgate/reservations";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY, adminHeaders } from "./support/coupon-test-kit.ts";
import { documentedInject, expectProblem, get, post, waitUntil } from "./support/intake-test-kit.ts";
import { createProduct, patchProduct, productState } from "./support/product-test-kit.ts";
import { openTicketSocket, type TicketSocket } from "./support/ticket-socket.ts";

let env: TestEnvironment;
let app: FastifyInstance;
let productId: string;
let worker: ScriptedRedis;

beforeAll(async () => {
  env = await createTestEnvironment("waiting-room-sold-out", { env: { ADMIN_API_KEY: ADMIN_KEY } });
  app = await buildApp(env.config, { logger: false });
  await app.listen({ port: 0, host: "127.0.0.1" });
  worker = createRedis(env.config.redisUrl, { name: "waiting-room-sold-out-worker" });
  productId = (await createProduct(app, { stock: 2, price: 1000 })).id;
});

afterAll(async () => {
  worker?.disconnect();
  await app?.close();
  await env?.cleanup();
});

const baseUrl = () => `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
const join = (userId: string, pass?: string) =>
  post(app, "/v1/rooms/sale/tickets", pass === undefined ? { userId } : { userId, pass });
const ticket = async (ticketId: string) => (await get(app, `/v1/rooms/sale/tickets/${ticketId}`)).json();
const statusOf = async (ticketId: string) => (await ticket(ticketId)).status as string;
const lastTickAt = async () =>
  Number(await app.redis.hget(app.admission.keys.room("sale").state, "lastTickAt"));
/** Resolves once the leader has ticked the room for a while after `since` (its ticks are ~100 ms apart). */
const ticksAfter = (since: number) =>
  waitUntil(lastTickAt, (at) => at > since + 500, "five more ticks of the room");
const unpaid = async () => Number((await productState(app, productId)).unpaid ?? 0);
const orderOne = async (userId: string, admissionToken: string) => {
  const ordered = await post(
    app,
    "/v1/orders",
    { userId, items: [{ productId, quantity: 1 }] },
    { "admission-token": admissionToken },
  );
  expect(ordered.statusCode, ordered.body).toBe(202);
  return { orderId: ordered.json().id as string, userId, items: [{ productId, quantity: 1 }] };
};
const admitted = async (ticketId: string) => {
  const view = await waitUntil(
    () => ticket(ticketId),
    (t) => t.status === "admitted",
    `${ticketId} admitted`,
  );
  return view.admissionToken as string;
};

/** The operator's view of the room (GET /v1/rooms/:roomId). */
const roomView = async () => {
  const view = await documentedInject(app, { method: "GET", url: "/v1/rooms/sale", headers: adminHeaders() });
  expect(view.statusCode, view.body).toBe(200);
  return view.json();
};

describe("a room whose products sell out", () => {
  it("stays open while an unpaid unit could come back, then tells every waiting socket, poll and join, and reopens on a restock", async () => {
    const defined = await documentedInject(app, {
      method: "PUT",
      url: "/v1/rooms/sale",
      headers: adminHeaders(),
      payload: { mode: "on", admitPerSecond: 50, sessionSeconds: 600, products: [productId] },
    });
    expect(defined.statusCode, defined.body).toBe(201);
    const tickets: string[] = [];
    for (let i = 0; i < 5; i++) {
      const joined = await join(`buyer-${i}`);
      expect(joined.statusCode, joined.body).toBe(201);
      tickets.push(joined.json().ticketId);
    }
    const sockets: TicketSocket[] = [];
    try {
      for (const ticketId of tickets.slice(2))
        sockets.push(await openTicketSocket(baseUrl(), "sale", ticketId, env.serverKey));

      // Both units reserved, unpaid: nothing available, but either may come back.
      const first = await orderOne("buyer-0", await admitted(tickets[0]!));
      const second = await orderOne("buyer-1", await admitted(tickets[1]!));
      expect(await unpaid()).toBe(2);
      await ticksAfter(Date.now());
      expect(await statusOf(tickets[4]!)).toBe("waiting");

      // One expires: its unit comes back, unpaid goes down, the next in line is admitted and reserves it.
      await releaseOrders(
        worker,
        app.queueKeys,
        [second],
        app.config.orderTtlSeconds + ORDER_STATE_GRACE_SECONDS,
      );
      const third = await orderOne("buyer-2", await admitted(tickets[2]!));
      expect(await unpaid()).toBe(2);

      // One is paid (its batch delivered twice): one unit still unpaid, the room still open.
      await settlePaidOrders(worker, app.queueKeys, [first]);
      await settlePaidOrders(worker, app.queueKeys, [first]);
      expect(await unpaid()).toBe(1);
      await ticksAfter(Date.now());
      expect(await statusOf(tickets[4]!)).toBe("waiting");
      expect(sockets.flatMap((s) => s.messages).filter((m) => m.type === "sold_out")).toEqual([]);

      // The last unpaid unit is paid: sold out, told to every socket still waiting.
      await settlePaidOrders(worker, app.queueKeys, [third]);
      expect(await unpaid()).toBe(0);
      for (const socket of sockets.slice(1)) await socket.next((m) => m.type === "sold_out", "sold_out");
      expect(await statusOf(tickets[3]!)).toBe("sold_out");
      expect(await statusOf(tickets[4]!)).toBe("sold_out");
      const refused = await join("late-buyer");
      expectProblem(refused, 410, "room_sold_out", "roomId");
      // The room's state answers first: a pass (here another user's, a 403 in an open room) is not looked at.
      const othersPass = mintJoinPass(app.admission.tokens, {
        roomId: "sale",
        userId: "someone-else",
        pass: { kind: "bypass" },
        expiresInSeconds: 60,
      }).token;
      expectProblem(await join("late-buyer", othersPass), 410, "room_sold_out", "roomId");
      expect(await roomView()).toMatchObject({ unitsLeft: 0, soldOut: true });
      expect(await app.redis.hexists(app.admission.keys.room("sale").users, "late-buyer")).toBe(0);

      // A restock reopens the room: the next in line is admitted, joins are taken, positions follow again.
      const restocked = await patchProduct(app, productId, { stockAdded: 1 });
      expect(restocked.statusCode, restocked.body).toBe(200);
      await admitted(tickets[3]!);
      await sockets[2]!.next((m) => m.type === "position" && m.position === 1, "first in line again");
      expect(await statusOf(tickets[4]!)).toBe("waiting");
      const reopened = await join("late-buyer");
      expect(reopened.statusCode, reopened.body).toBe(201);
      expect(await roomView()).toMatchObject({ soldOut: false });
    } finally {
      for (const socket of sockets) socket.close();
    }
  });
});
