// Rooms per sale, through the HTTP API with this process as the admission leader: a room naming products or
// coupons guards only the requests that touch them, so two sales queue at once, each in its own line, in join
// order; an order naming two rooms' products is refused before its script; a product or coupon sits in one
// active room at most; a room guarding a route class whole still guards the rest of that class.
import { createSubscriber, type RedisConnection, waitForRedis } from "@floodgate/redis-connections";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY, adminHeaders, createCoupon, issue } from "./support/coupon-test-kit.ts";
import {
  documentedInject,
  expectProblem,
  get,
  post,
  totalStreamLength,
  waitUntil,
} from "./support/intake-test-kit.ts";
import { createProduct } from "./support/product-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;
let subscriber: RedisConnection;
/** roomId -> ticket ids in the order the leader admitted them (its room events). */
const admitted = new Map<string, string[]>();
const ids = { a1: "", a2: "", b1: "", loose: "", couponA: "", couponB: "" };

beforeAll(async () => {
  env = await createTestEnvironment("waiting-room-sales", { env: { ADMIN_API_KEY: ADMIN_KEY } });
  app = await buildApp(env.config, { logger: false });
  await app.ready();
  subscriber = createSubscriber(env.config.redisUrl, "waiting-room-sales-events");
  await waitForRedis(subscriber);
  subscriber.on("message", (_channel, message) => {
    const event = JSON.parse(message) as { room: string; admitted: [string, string, number][] | object };
    if (!Array.isArray(event.admitted)) return;
    const line = admitted.get(event.room) ?? [];
    for (const [ticketId] of event.admitted) line.push(ticketId);
    admitted.set(event.room, line);
  });
  await subscriber.subscribe(app.admission.keys.roomEventsChannel());
  ids.a1 = (await createProduct(app, { stock: 100, price: 500 })).id;
  ids.a2 = (await createProduct(app, { stock: 100, price: 700 })).id;
  ids.b1 = (await createProduct(app, { stock: 100, price: 900 })).id;
  ids.loose = (await createProduct(app, { stock: 100, price: 300 })).id;
  ids.couponA = (await createCoupon(app)).id;
  ids.couponB = (await createCoupon(app)).id;
});

afterAll(async () => {
  subscriber?.disconnect();
  await app?.close();
  await env?.cleanup();
});

const room = (changes: Record<string, unknown> = {}) => ({
  mode: "on",
  admitPerSecond: 20,
  sessionSeconds: 60,
  ...changes,
});
const putRoom = (roomId: string, body: unknown) =>
  documentedInject(app, {
    method: "PUT",
    url: `/v1/rooms/${roomId}`,
    headers: adminHeaders(),
    payload: body as object,
  });
const join = async (roomId: string, userId: string) => {
  const response = await post(app, `/v1/rooms/${roomId}/tickets`, { userId });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().ticketId as string;
};
const order = (userId: string, productIds: string[], token?: string) =>
  post(
    app,
    "/v1/orders",
    { userId, items: productIds.map((productId) => ({ productId, quantity: 1 })) },
    token ? { "admission-token": token } : {},
  );
const issueWith = (couponId: string, userId: string, token: string) =>
  post(app, `/v1/coupons/${couponId}/issues`, { userId }, { "admission-token": token });
const available = async (productId: string) =>
  Number(await app.redis.hget(app.queueKeys.productState(productId), "available"));

async function tokenOf(roomId: string, ticketId: string): Promise<string> {
  const view = await waitUntil(
    async () => (await get(app, `/v1/rooms/${roomId}/tickets/${ticketId}`)).json(),
    (ticket) => ticket.status === "admitted",
    `${ticketId} to be admitted`,
  );
  return view.admissionToken;
}

describe("rooms per sale", () => {
  it("defines two sales' rooms active at once, and keeps each product and coupon in one active room", async () => {
    const a = await putRoom("sale-a", room({ products: [ids.a1, ids.a2], coupons: [ids.couponA] }));
    expect(a.statusCode, a.body).toBe(201);
    expect(a.json()).toMatchObject({
      roomId: "sale-a",
      queueing: true,
      guards: [],
      products: [ids.a1, ids.a2],
      coupons: [ids.couponA],
    });
    expect((await putRoom("sale-b", room({ products: [ids.b1], coupons: [ids.couponB] }))).statusCode).toBe(
      201,
    );

    expectProblem(
      await putRoom("sale-c", room({ products: [ids.loose, ids.a2] })),
      409,
      "room_sale_conflict",
      "products.1",
    );
    expectProblem(
      await putRoom("sale-c", room({ coupons: [ids.couponB] })),
      409,
      "room_sale_conflict",
      "coupons.0",
    );
    // A sale's room guards what touches its products, not a route class whole.
    expectProblem(
      await putRoom("sale-c", room({ products: [ids.loose], guards: ["orders"] })),
      400,
      "validation_error",
      "guards",
    );
    expectProblem(
      await putRoom("sale-c", room({ products: ["not-a-product"] })),
      400,
      "validation_error",
      "products.0",
    );
    // A room that is off guards nothing, so it may name them.
    expect((await putRoom("sale-c", room({ mode: "off", products: [ids.a1] }))).statusCode).toBe(201);
    expect((await get(app, "/v1/rooms/sale-c", adminHeaders())).json()).toMatchObject({
      mode: "off",
      products: [ids.a1],
    });
  });

  it("checks each request against the room of what it touches, and refuses an order naming two rooms' products", async () => {
    const refusedBy = async (response: Awaited<ReturnType<typeof order>>) =>
      expectProblem(response, 403, "waiting_room_required", "Admission-Token").roomId;
    expect(await refusedBy(await order("walk-in", [ids.a1]))).toBe("sale-a");
    expect(await refusedBy(await order("walk-in", [ids.a2, ids.loose]))).toBe("sale-a");
    expect(await refusedBy(await order("walk-in", [ids.b1]))).toBe("sale-b");
    expect(await refusedBy(await issue(app, ids.couponA, "walk-in"))).toBe("sale-a");
    expect(await refusedBy(await issue(app, ids.couponB, "walk-in"))).toBe("sale-b");
    // No room guards orders whole: an order of other products goes through.
    expect((await order("walk-in", [ids.loose])).statusCode).toBe(202);

    const streams = await totalStreamLength(app);
    const spans = expectProblem(
      await order("walk-in", [ids.a1, ids.b1, ids.a2]),
      409,
      "order_spans_rooms",
      "items",
    );
    expect(spans.rooms).toEqual(["sale-a", "sale-b"]);
    expect(await totalStreamLength(app)).toBe(streams);
    expect([await available(ids.a1), await available(ids.b1)]).toEqual([100, 100]);
    // Even with an admission to one of them: the script reads one room's gate.
    const ticketId = await join("sale-a", "spanner");
    await putRoom(
      "sale-a",
      room({ admitPerSecond: 1000, products: [ids.a1, ids.a2], coupons: [ids.couponA] }),
    );
    const token = await tokenOf("sale-a", ticketId);
    expectProblem(await order("spanner", [ids.a1, ids.b1], token), 409, "order_spans_rooms", "items");
    expect((await order("spanner", [ids.a1, ids.loose], token)).statusCode).toBe(202);
  });

  it("admits each sale's line in join order, at once, with tokens good only in their own room", async () => {
    // Nearly shut while both crowds join, then opened: each line must come out in its own join order.
    const define = (rate: number) =>
      Promise.all([
        putRoom("sale-a", room({ admitPerSecond: rate, products: [ids.a1, ids.a2], coupons: [ids.couponA] })),
        putRoom("sale-b", room({ admitPerSecond: rate, products: [ids.b1], coupons: [ids.couponB] })),
      ]);
    await define(1);
    const joined: Record<string, string[]> = { "sale-a": [], "sale-b": [] };
    const already = {
      "sale-a": admitted.get("sale-a")?.length ?? 0,
      "sale-b": admitted.get("sale-b")?.length ?? 0,
    };
    for (let i = 0; i < 12; i++) {
      joined["sale-a"]!.push(await join("sale-a", `fan-a-${i}`));
      joined["sale-b"]!.push(await join("sale-b", `fan-b-${i}`));
    }
    await define(20);
    for (const roomId of ["sale-a", "sale-b"] as const) {
      const line = await waitUntil(
        async () => (admitted.get(roomId) ?? []).slice(already[roomId]),
        (tickets) => joined[roomId]!.every((id) => tickets.includes(id)),
        `every ${roomId} ticket to be admitted`,
      );
      const theirs = line.filter((id) => joined[roomId]!.includes(id));
      expect(theirs).toEqual(joined[roomId]);
    }

    const tokenA = await tokenOf("sale-a", joined["sale-a"]![0]!);
    const tokenB = await tokenOf("sale-b", joined["sale-b"]![0]!);
    expect((await order("fan-a-0", [ids.a1, ids.a2], tokenA)).statusCode).toBe(202);
    expect((await issueWith(ids.couponA, "fan-a-0", tokenA)).statusCode).toBe(202);
    expect((await order("fan-b-0", [ids.b1], tokenB)).statusCode).toBe(202);
    expect((await issueWith(ids.couponB, "fan-b-0", tokenB)).statusCode).toBe(202);
    // A token of one sale's room is not an admission to the other's.
    const wrong = expectProblem(await order("fan-a-0", [ids.b1], tokenA), 403, "waiting_room_required");
    expect(wrong).toMatchObject({ roomId: "sale-b", reason: "wrong_room" });
  });

  it("lets a room guarding orders whole guard the orders no sale's room holds", async () => {
    expect((await putRoom("all-orders", room({ guards: ["orders"] }))).statusCode).toBe(201);
    // Another room guarding orders whole is still a conflict; a sale's room beside it is not.
    expectProblem(
      await putRoom("all-orders-2", room({ guards: ["orders"] })),
      409,
      "room_guard_conflict",
      "guards",
    );
    expect(expectProblem(await order("walk-in-2", [ids.loose]), 403, "waiting_room_required").roomId).toBe(
      "all-orders",
    );
    expect(expectProblem(await order("walk-in-2", [ids.b1]), 403, "waiting_room_required").roomId).toBe(
      "sale-b",
    );
    // A sale's room that is off guards nothing: its products fall to the room guarding orders whole.
    await putRoom("sale-b", room({ mode: "off", products: [ids.b1], coupons: [ids.couponB] }));
    expect(expectProblem(await order("walk-in-2", [ids.b1]), 403, "waiting_room_required").roomId).toBe(
      "all-orders",
    );
    expect((await issue(app, ids.couponB, "walk-in-2")).statusCode).toBe(202);
    await putRoom("all-orders", room({ mode: "off", guards: ["orders"] }));
    expect((await order("walk-in-2", [ids.loose])).statusCode).toBe(202);
  });
});
