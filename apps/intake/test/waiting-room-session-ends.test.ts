// A waiting-room session ends on its order, end to end (this process leads the rooms, a worker process settles
// the orders): with maxActiveSessions 1, the next shopper in line is admitted once the first one's order is
// paid, cancelled or expired, and the first one's token stops admitting (its session is over: it reads
// `expired`). In a room selling products, the session leaves the stock-aware count too: never more admitted
// sessions holding no reservation than the units left. A room with sessionIdleSeconds ends a session whose token
// goes unused that long (the next is admitted, the token refused) and keeps one in use. Run on one Redis and on
// the cluster.
import {
  createTestEnvironment,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY } from "./support/coupon-test-kit.ts";
import { expectProblem, get, post, waitUntil } from "./support/intake-test-kit.ts";
import { createProduct } from "./support/product-test-kit.ts";
import { getRoom, putRoom, ticksAfter } from "./support/room-admin-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;
let worker: WorkerProcess;

/** Orders expire this soon, so the expiry case ends a session in a few seconds. */
const ORDER_TTL_SECONDS = 3;

beforeAll(async () => {
  env = await createTestEnvironment("waiting-room-session-ends", {
    env: {
      ADMIN_API_KEY: ADMIN_KEY,
      RATE_LIMITS: "room-joins.ip=off",
      ORDER_TTL_SECONDS: String(ORDER_TTL_SECONDS),
    },
  });
  app = await buildApp(env.config, { logger: false });
  await app.listen({ port: 0, host: "127.0.0.1" });
  worker = await startWorkerProcess(env.config);
});

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await env?.cleanup();
});

/** A worker's settlement takes a batch or two: wait up to 30 s for what it ends. */
const SETTLED_ATTEMPTS = 600;

const cappedRoom = (changes: Record<string, unknown> = {}) => ({
  mode: "on",
  admitPerSecond: 50,
  sessionSeconds: 600,
  maxActiveSessions: 1,
  guards: ["orders"],
  ...changes,
});

/**
 * Defines a room after turning off the ones defined before: a route class is guarded by one active room at
 * most, and these tests guard the same classes one after another.
 */
const defined = new Map<string, Record<string, unknown>>();
async function defineRoom(roomId: string, body: Record<string, unknown>) {
  for (const [otherId, other] of defined)
    expect((await putRoom(app, otherId, { ...other, mode: "off" })).statusCode).toBe(200);
  defined.clear();
  const answer = await putRoom(app, roomId, body);
  expect(answer.statusCode, answer.body).toBe(201);
  defined.set(roomId, body);
  return answer;
}

const ticket = async (roomId: string, ticketId: string) =>
  (await get(app, `/v1/rooms/${roomId}/tickets/${ticketId}`)).json();

async function join(roomId: string, userId: string): Promise<string> {
  const joined = await post(app, `/v1/rooms/${roomId}/tickets`, { userId });
  expect(joined.statusCode, joined.body).toBe(201);
  return joined.json().ticketId as string;
}

/** The ticket's admission token once it is admitted (the poll grants its pass). */
const admitted = async (roomId: string, ticketId: string, what: string): Promise<string> =>
  (
    await waitUntil(
      () => ticket(roomId, ticketId),
      (view) => view.status === "admitted",
      what,
    )
  ).admissionToken;

const order = (userId: string, productId: string, token: string) =>
  post(app, "/v1/orders", { userId, items: [{ productId, quantity: 1 }] }, { "admission-token": token });

async function placeOrder(userId: string, productId: string, token: string): Promise<string> {
  const placed = await order(userId, productId, token);
  expect(placed.statusCode, placed.body).toBe(202);
  return placed.json().id as string;
}

const orderStatus = async (orderId: string) =>
  (await get(app, `/v1/orders/${orderId}`)).json().status as string;

async function deposit(userId: string, amount: number): Promise<void> {
  const accepted = await post(app, `/v1/wallets/${userId}/deposits`, { amount });
  expect(accepted.statusCode, accepted.body).toBe(202);
  await waitUntil(
    async () => (await get(app, accepted.headers.location as string)).json().status,
    (status) => status === "succeeded",
    `${userId}'s deposit applied`,
    SETTLED_ATTEMPTS,
  );
}

/** Until the ticket reads `status` (a worker batch ends the session, the leader's tick admits the next). */
const becomes = (roomId: string, ticketId: string, status: string, what: string) =>
  waitUntil(
    () => ticket(roomId, ticketId),
    (view) => view.status === status,
    what,
    SETTLED_ATTEMPTS,
  );

describe("a session ends on its order", () => {
  it("paid: the next in line is admitted, and the paid session's token admits no more", async () => {
    const productId = (await createProduct(app, { stock: 10, price: 500 })).id;
    await defineRoom("paid", cappedRoom());
    await deposit("paid-a", 500);
    const first = await join("paid", "paid-a");
    const second = await join("paid", "paid-b");
    const token = await admitted("paid", first, "the first shopper admitted");
    await ticksAfter(app, "paid");
    expect((await ticket("paid", second)).status).toBe("waiting");

    const orderId = await placeOrder("paid-a", productId, token);
    const paid = await post(app, "/v1/payments", { userId: "paid-a", amount: 500, orderId });
    expect(paid.statusCode, paid.body).toBe(202);
    await becomes(
      "paid",
      second,
      "admitted",
      "the second shopper admitted once the first one's order is paid",
    );
    expect(await orderStatus(orderId)).toBe("paid");
    expect((await ticket("paid", first)).status).toBe("expired");
    // Checkout is done: the first session's token no longer passes the room.
    const again = expectProblem(
      await order("paid-a", productId, token),
      403,
      "waiting_room_required",
      "Admission-Token",
    );
    expect(again.reason).toBe("expired");
  });

  it("cancelled or expired: the next in line is admitted for it", async () => {
    const productId = (await createProduct(app, { stock: 10, price: 500 })).id;
    await defineRoom("unsold", cappedRoom());
    const [a, b, c] = [
      await join("unsold", "unsold-a"),
      await join("unsold", "unsold-b"),
      await join("unsold", "unsold-c"),
    ];

    const tokenA = await admitted("unsold", a, "a admitted");
    const cancelled = await placeOrder("unsold-a", productId, tokenA);
    await ticksAfter(app, "unsold");
    expect((await ticket("unsold", b)).status).toBe("waiting");
    expect((await post(app, `/v1/orders/${cancelled}/cancel`, {})).statusCode).toBe(202);
    const tokenB = await admitted("unsold", b, "b admitted once a's order is cancelled");
    expect(await orderStatus(cancelled)).toBe("cancelled");
    expect((await ticket("unsold", c)).status).toBe("waiting");
    const refused = expectProblem(
      await order("unsold-a", productId, tokenA),
      403,
      "waiting_room_required",
      "Admission-Token",
    );
    expect(refused.reason).toBe("expired");

    // Nobody pays b's order: it expires after ORDER_TTL_SECONDS, and c goes in.
    const expiring = await placeOrder("unsold-b", productId, tokenB);
    await becomes("unsold", c, "admitted", "c admitted once b's order expired");
    expect(await orderStatus(expiring)).toBe("expired");
    expect((await ticket("unsold", b)).status).toBe("expired");
  });
});

describe("a token the intake cannot prove names no session", () => {
  it("an order with another shopper's ticket in made-up claims, while the room does not queue, ends nobody's session", async () => {
    const productId = (await createProduct(app, { stock: 10, price: 500 })).id;
    // auto and calm: joins are admitted at once and the room does not queue, so the script checks no pass.
    await defineRoom("forged", {
      mode: "auto",
      admitPerSecond: 1000,
      sessionSeconds: 600,
      guards: ["orders"],
    });
    const victim = await join("forged", "forged-victim");
    const own = await join("forged", "forged-attacker");
    const victimToken = await admitted("forged", victim, "the victim admitted at once");
    const ownToken = await admitted("forged", own, "the attacker admitted at once");
    // The attacker's own token with the victim's ticket in its claims: its signature no longer holds.
    const [header, payload, signature] = ownToken.split(".");
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString("utf8"));
    const madeUp = `${header}.${Buffer.from(JSON.stringify({ ...claims, tkt: victim })).toString("base64url")}.${signature}`;
    expect(madeUp).not.toBe(victimToken);
    const orderId = await placeOrder("forged-attacker", productId, madeUp);
    expect((await post(app, `/v1/orders/${orderId}/cancel`, {})).statusCode).toBe(202);
    await waitUntil(
      () => orderStatus(orderId),
      (status) => status === "cancelled",
      "the made-up token's order cancelled",
      SETTLED_ATTEMPTS,
    );
    // The worker ended no session for it: the victim's and the attacker's own tickets are still admitted.
    expect((await ticket("forged", victim)).status).toBe("admitted");
    expect((await ticket("forged", own)).status).toBe("admitted");
  });
});

describe("a room selling products", () => {
  it("keeps the stock-aware count right as sessions end on their orders: never admitted beyond the units left", async () => {
    const productId = (await createProduct(app, { stock: 2, price: 500 })).id;
    await defineRoom("stocked", {
      mode: "on",
      admitPerSecond: 50,
      sessionSeconds: 600,
      products: [productId],
      admitBeyondStock: 0,
    });
    const users = ["stocked-a", "stocked-b", "stocked-c", "stocked-d"];
    const tickets: string[] = [];
    for (const user of users) tickets.push(await join("stocked", user));
    const statuses = async () =>
      Promise.all(tickets.map(async (id) => (await ticket("stocked", id)).status as string));
    const count = (list: string[], status: string) => list.filter((s) => s === status).length;
    await waitUntil(statuses, (list) => count(list, "admitted") === 2, "two admitted for two units");
    await ticksAfter(app, "stocked");
    expect(count(await statuses(), "admitted")).toBe(2);

    // The first admitted orders a unit and cancels it: its session ends, its unit comes back, one more goes in,
    // and still no more sessions than units.
    const firstIndex = (await statuses()).indexOf("admitted");
    const token = (await ticket("stocked", tickets[firstIndex]!)).admissionToken as string;
    const orderId = await placeOrder(users[firstIndex]!, productId, token);
    expect((await post(app, `/v1/orders/${orderId}/cancel`, {})).statusCode).toBe(202);
    await waitUntil(
      statuses,
      (list) => list[firstIndex] === "expired" && count(list, "admitted") === 2,
      "the cancelled session ended and one more admitted in its place",
      SETTLED_ATTEMPTS,
    );
    await ticksAfter(app, "stocked");
    const settledList = await statuses();
    expect(count(settledList, "admitted")).toBe(2);
    expect(count(settledList, "waiting")).toBe(1);
  });
});

describe("sessionIdleSeconds", () => {
  const idleRoom = (sessionIdleSeconds: number) => cappedRoom({ guards: ["payments"], sessionIdleSeconds });
  /** A guarded request with the token: a payment (accepted at the edge whatever the wallet holds). */
  const pay = (userId: string, token: string) =>
    post(app, "/v1/payments", { userId, amount: 1 }, { "admission-token": token });

  it("an idle session ends and the next is admitted; its token admits no more", async () => {
    const answer = await defineRoom("idle", idleRoom(1));
    expect(answer.json().sessionIdleSeconds).toBe(1);
    const first = await join("idle", "idle-a");
    const second = await join("idle", "idle-b");
    const token = await admitted("idle", first, "the first shopper admitted");
    expect((await pay("idle-a", token)).statusCode).toBe(202);
    // No request with it for a second: the session ends, and the next in line goes in.
    await becomes("idle", second, "admitted", "the second shopper admitted once the first one idled");
    expect((await ticket("idle", first)).status).toBe("expired");
    const refused = expectProblem(
      await pay("idle-a", token),
      403,
      "waiting_room_required",
      "Admission-Token",
    );
    expect(refused.reason).toBe("expired");
  });

  it("a session whose token keeps being used stays, and ends once it stops", async () => {
    // An idle time of 4 s: a use every 300 ms stays far inside it even when a request waits seconds for a
    // busy machine (the suite runs beside 240 other files on two cores).
    await defineRoom("busy", idleRoom(4));
    const first = await join("busy", "busy-a");
    const second = await join("busy", "busy-b");
    const token = await admitted("busy", first, "the first shopper admitted");
    // Used every 300 ms for two and a half idle times: the session stays, nobody else goes in.
    const until = Date.now() + 10_000;
    while (Date.now() < until) {
      expect((await pay("busy-a", token)).statusCode).toBe(202);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect((await ticket("busy", first)).status).toBe("admitted");
    expect((await ticket("busy", second)).status).toBe("waiting");
    await becomes("busy", second, "admitted", "the second shopper admitted once the first one stopped");
    expect((await ticket("busy", first)).status).toBe("expired");
  });

  it("refuses a sessionIdleSeconds that is no whole number of seconds from 1, naming it, and stores nothing", async () => {
    for (const value of [0, -1, 1.5, "soon"]) {
      expectProblem(
        await putRoom(app, "idle-never-defined", idleRoom(value as number)),
        400,
        "validation_error",
        "sessionIdleSeconds",
      );
    }
    expect((await getRoom(app, "idle-never-defined")).statusCode).toBe(404);
    const off = await defineRoom("idle-off", cappedRoom({ sessionIdleSeconds: null }));
    expect(off.json().sessionIdleSeconds).toBeNull();
  });
});
