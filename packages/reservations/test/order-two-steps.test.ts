// An order as a Redis Cluster runs it (reserve-order-in-two-steps.ts): units reserved in each product's slot, then
// the order recorded in the user's. Called directly, so it runs on one Redis too; both test projects run it.
// What must hold whatever the interleaving: never more units out than the stock, all or nothing across an order's
// products, every unit of an order not recorded given back (at once when the intake knows, by the sweep when it
// died between the steps), and an ended order's units returned to stock once.
import { MAX_AMOUNT, newOperationId, newProductId } from "@floodgate/domain";
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { commitOrder, releaseStock, reserveStock } from "@floodgate/redis-scripts";
import { bucketForUser } from "@floodgate/shard-router";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  COMMIT_WINDOW_MS,
  changeProductState,
  type ReserveOrderRequest,
  releaseOrders,
  SWEEP_AFTER_MS,
  sweepStockReservations,
  writeProductState,
} from "../src/index.ts";
import { reserveOrderInTwoSteps } from "../src/reserve-order-in-two-steps.ts";
import { orderFieldsOf, orderKeysOf } from "../src/reserve-order-request.ts";
import { DEFAULT_CAP, ORDER_STATE_TTL_SECONDS, orderRequest } from "./support/reservation-requests.ts";

let env: TestEnvironment;
let redis: ScriptedRedis;
let keys: QueueKeys;

beforeAll(async () => {
  env = await createTestEnvironment("order-two-steps", { shards: 1 });
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
});

afterAll(async () => {
  await redis?.quit();
  await env?.cleanup();
});

async function newProduct(stock: number, price = 1_000, maxUnitsPerUser: number | null = null) {
  const id = newProductId();
  await writeProductState(redis, keys, { id, price, stock, maxUnitsPerUser });
  return id;
}

type Items = ReserveOrderRequest["items"];

const requestFor = (userId: string, items: Items, extra: Partial<ReserveOrderRequest> = {}) =>
  orderRequest(keys, userId, items, extra);

function order(userId: string, items: Items, extra: Partial<ReserveOrderRequest> = {}) {
  return reserveOrderInTwoSteps(redis, keys, requestFor(userId, items, extra));
}

async function stockOf(productId: string) {
  return {
    available: Number(await redis.hget(keys.productState(productId), "available")),
    reserved: await redis.zcard(keys.productReservations(productId)),
  };
}

/** The ZREM after an accepted commit is sent without waiting for it. */
async function settled(productId: string, expected: { available: number; reserved: number }) {
  for (let i = 0; i < 100; i++) {
    const counts = await stockOf(productId);
    if (JSON.stringify(counts) === JSON.stringify(expected)) return counts;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return stockOf(productId);
}

/** A user whose partition is not `partition` (the coupon's record is then in another slot). */
function userOutside(partition: number): string {
  for (let i = 0; ; i++) if (keys.partitionForUser(`other-${i}`) !== partition) return `other-${i}`;
}

async function unpaid(productId: string, userId: string) {
  return Number((await redis.get(keys.unpaidUnits(productId, userId))) ?? 0);
}

describe("an order in two steps", () => {
  it("sells exactly the stock to a crowd racing for it, and lists no reservation after", async () => {
    const productId = await newProduct(15);
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) => order(`racer-${i}`, [{ productId, quantity: 1 }])),
    );
    const accepted = outcomes.filter((outcome) => outcome.result === "accepted");
    expect(accepted).toHaveLength(15);
    expect(outcomes.filter((outcome) => outcome.result === "out_of_stock")).toHaveLength(25);
    expect(await settled(productId, { available: 0, reserved: 0 })).toEqual({ available: 0, reserved: 0 });
    // Each accepted order is recorded in its user's slot: pending status, order state, its unit counted.
    for (const outcome of accepted) {
      if (outcome.result !== "accepted") continue;
      const partition = keys.partitionForOperation(outcome.id)!;
      expect(await redis.hget(keys.status(partition, outcome.id), "status")).toBe("pending");
      expect(await redis.hget(keys.orderState(partition, outcome.id), "amount")).toBe("1000");
      const userId = (await redis.hget(keys.orderState(partition, outcome.id), "userId"))!;
      expect(await unpaid(productId, userId)).toBe(1);
      expect(outcome.amount).toBe(1_000);
    }
  });

  it("sums a product's lines into one reservation and records every line", async () => {
    const first = await newProduct(10, 700);
    const second = await newProduct(10, 300);
    const outcome = await order("summer", [
      { productId: first, quantity: 2 },
      { productId: second, quantity: 1 },
      { productId: first, quantity: 3 },
    ]);
    if (outcome.result !== "accepted") throw new Error(`expected accepted, got ${outcome.result}`);
    expect(outcome.amount).toBe(5 * 700 + 300);
    const status = keys.status(keys.partitionForUser("summer"), outcome.id);
    const message = JSON.parse((await redis.hget(status, "message"))!);
    expect(message.items).toEqual([
      { productId: first, quantity: 2, unitPrice: 700 },
      { productId: second, quantity: 1, unitPrice: 300 },
      { productId: first, quantity: 3, unitPrice: 700 },
    ]);
    expect(await settled(first, { available: 5, reserved: 0 })).toEqual({ available: 5, reserved: 0 });
    expect(await settled(second, { available: 9, reserved: 0 })).toEqual({ available: 9, reserved: 0 });
    expect(await unpaid(first, "summer")).toBe(5);
    expect(await unpaid(second, "summer")).toBe(1);
  });
});

describe("all or nothing across products", () => {
  it("refuses an order whose second product is short, naming that line, with the first's units back", async () => {
    const first = await newProduct(10);
    const second = await newProduct(3);
    const outcome = await order("short", [
      { productId: first, quantity: 2 },
      { productId: second, quantity: 5 },
    ]);
    expect(outcome).toEqual({
      result: "out_of_stock",
      lines: [{ line: 2, productId: second, requested: 5, available: 3 }],
      replayed: false,
    });
    // The releases on a refusal are awaited: no polling.
    expect(await stockOf(first)).toEqual({ available: 10, reserved: 0 });
    expect(await stockOf(second)).toEqual({ available: 3, reserved: 0 });
    expect(await unpaid(first, "short")).toBe(0);
  });

  it("refuses an order naming an unknown product's first line, with the known product's units back", async () => {
    const known = await newProduct(10);
    const unknown = newProductId();
    const outcome = await order("unknown", [
      { productId: known, quantity: 2 },
      { productId: unknown, quantity: 1 },
      { productId: unknown, quantity: 1 },
    ]);
    expect(outcome).toEqual({ result: "unknown_product", line: 2, productId: unknown, replayed: false });
    expect(await stockOf(known)).toEqual({ available: 10, reserved: 0 });
    expect(await redis.exists(keys.productState(unknown))).toBe(0);
  });

  it("checks a repeated product against the sum of its lines, naming each of its lines when short", async () => {
    const repeated = await newProduct(5);
    const other = await newProduct(10);
    const outcome = await order("repeat", [
      { productId: repeated, quantity: 3 },
      { productId: other, quantity: 1 },
      { productId: repeated, quantity: 3 },
    ]);
    expect(outcome).toEqual({
      result: "out_of_stock",
      lines: [
        { line: 1, productId: repeated, requested: 3, available: 5 },
        { line: 3, productId: repeated, requested: 3, available: 5 },
      ],
      replayed: false,
    });
    expect(await stockOf(repeated)).toEqual({ available: 5, reserved: 0 });
    expect(await stockOf(other)).toEqual({ available: 10, reserved: 0 });
  });
});

describe("refusals decided at the commit, in the user's slot", () => {
  it("refuses past the per-user cap, counting the units the user already holds, and gives the stock back", async () => {
    const productId = await newProduct(10, 1_000, 2);
    expect((await order("capped", [{ productId, quantity: 2 }])).result).toBe("accepted");
    await settled(productId, { available: 8, reserved: 0 });
    const outcome = await order("capped", [{ productId, quantity: 1 }]);
    expect(outcome).toEqual({
      result: "unit_limit_exceeded",
      lines: [{ line: 1, productId, requested: 1, held: 2, limit: 2 }],
      replayed: false,
    });
    expect(await stockOf(productId)).toEqual({ available: 8, reserved: 0 });
    expect(await unpaid(productId, "capped")).toBe(2);
    // The deployment's cap applies to a product without its own.
    const plain = await newProduct(20);
    expect(await order("greedy", [{ productId: plain, quantity: DEFAULT_CAP + 1 }])).toMatchObject({
      result: "unit_limit_exceeded",
      lines: [{ line: 1, held: 0, limit: DEFAULT_CAP }],
    });
    expect(await stockOf(plain)).toEqual({ available: 20, reserved: 0 });
  });

  it("lets one user racing orders past the cap have exactly the cap: the commits meet in the user's slot", async () => {
    const productId = await newProduct(20, 1_000, 2);
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, () => order("cap-racer", [{ productId, quantity: 1 }])),
    );
    expect(outcomes.filter((outcome) => outcome.result === "accepted")).toHaveLength(2);
    expect(outcomes.filter((outcome) => outcome.result === "unit_limit_exceeded")).toHaveLength(4);
    expect(await settled(productId, { available: 18, reserved: 0 })).toEqual({ available: 18, reserved: 0 });
    expect(await unpaid(productId, "cap-racer")).toBe(2);
  });

  it("refuses an amount over MAX_AMOUNT and gives the stock back", async () => {
    const productId = await newProduct(10, MAX_AMOUNT / 2 + 1);
    expect(await order("rich", [{ productId, quantity: 2 }])).toEqual({
      result: "amount_too_large",
      amount: MAX_AMOUNT + 2,
      replayed: false,
    });
    expect(await stockOf(productId)).toEqual({ available: 10, reserved: 0 });
    expect(await unpaid(productId, "rich")).toBe(0);
  });
});

describe("a refusal of the user's side", () => {
  it("gives the units back at once when admission refuses (rate limited) after the products held them", async () => {
    const other = await newProduct(10);
    const productId = await newProduct(10);
    const userId = "limited";
    const partition = keys.partitionForUser(userId);
    const bucket = `${env.config.redisPrefix}{p${partition}}:rl:test:u:${userId}`;
    const stream = keys.stream(partition);
    // One token, refilled once an hour: the first request takes it.
    const limited = {
      keys: [bucket, stream, stream],
      args: [3_600_000, 1, "0", userId, "", "", "0"],
    } as const;
    expect((await order(userId, [{ productId: other, quantity: 1 }], { admission: limited })).result).toBe(
      "accepted",
    );
    expect(await order(userId, [{ productId, quantity: 3 }], { admission: limited })).toMatchObject({
      result: "rate_limited",
      scope: "user",
    });
    expect(await stockOf(productId)).toEqual({ available: 10, reserved: 0 });
  });
});

describe("a coupon of another partition", () => {
  const buyer = "coupon-buyer";

  it("is someone else's when its redemption record exists, and the stock goes back", async () => {
    const productId = await newProduct(10);
    const holder = userOutside(keys.partitionForUser(buyer));
    const holderPartition = keys.partitionForUser(holder);
    const couponIssueId = newOperationId("coupon_issue", bucketForUser(holder), Date.now());
    await redis.hset(keys.couponIssue(holderPartition, couponIssueId), {
      couponId: "cpn_someone",
      userId: holder,
      discountType: "fixed",
      discountValue: 500,
    });
    expect(await order(buyer, [{ productId, quantity: 1 }], { couponIssueId })).toEqual({
      result: "coupon_not_yours",
      replayed: false,
    });
    expect(await stockOf(productId)).toEqual({ available: 10, reserved: 0 });
    // The holder's record is untouched: no order holds it.
    expect(await redis.hget(keys.couponIssue(holderPartition, couponIssueId), "orderId")).toBeNull();
  });

  it("is unknown when it has no record, and the stock goes back", async () => {
    const productId = await newProduct(10);
    const holder = userOutside(keys.partitionForUser(buyer));
    const couponIssueId = newOperationId("coupon_issue", bucketForUser(holder), Date.now());
    expect(await order(buyer, [{ productId, quantity: 1 }], { couponIssueId })).toEqual({
      result: "unknown_coupon",
      replayed: false,
    });
    expect(await stockOf(productId)).toEqual({ available: 10, reserved: 0 });
  });
});

describe("Idempotency-Key", () => {
  it("takes the stock once when one user races the same key, and a later retry replays the order", async () => {
    const productId = await newProduct(20, 400);
    const items = [{ productId, quantity: 2 }];
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () => order("keyed", items, { idempotencyKey: "race-1" })),
    );
    const acceptedIds = outcomes.flatMap((outcome) => (outcome.result === "accepted" ? [outcome.id] : []));
    expect(acceptedIds).toHaveLength(1);
    // The others learn of that order as a replay, with its amount, never of another.
    for (const outcome of outcomes) {
      if (outcome.result === "accepted") continue;
      expect(outcome).toMatchObject({ result: "replayed", id: acceptedIds[0], amount: 800 });
    }
    expect(await settled(productId, { available: 18, reserved: 0 })).toEqual({ available: 18, reserved: 0 });
    expect(await unpaid(productId, "keyed")).toBe(2);
    expect(await order("keyed", items, { idempotencyKey: "race-1" })).toMatchObject({
      result: "replayed",
      id: acceptedIds[0],
      amount: 800,
    });
    expect(await stockOf(productId)).toEqual({ available: 18, reserved: 0 });
  });

  it("records an out-of-stock refusal under the key: a retry after a restock hears it again", async () => {
    const productId = await newProduct(1);
    const items = [{ productId, quantity: 2 }];
    expect(await order("late", items, { idempotencyKey: "late-key" })).toMatchObject({
      result: "out_of_stock",
      lines: [{ line: 1, available: 1 }],
      replayed: false,
    });
    expect(await changeProductState(redis, keys, productId, { stockAdded: 4 })).toBe(5);
    expect(await order("late", items, { idempotencyKey: "late-key" })).toMatchObject({
      result: "out_of_stock",
      lines: [{ line: 1, available: 1 }],
      replayed: true,
    });
    // The retry's units, held before the user's slot answered, are back.
    expect(await stockOf(productId)).toEqual({ available: 5, reserved: 0 });
    expect((await order("late", items, { idempotencyKey: "another-key" })).result).toBe("accepted");
  });
  it("answers a conflict to the same key with another body, and gives that body's units back", async () => {
    const first = await newProduct(10, 100);
    const second = await newProduct(10, 100);
    const placed = await order("switcher", [{ productId: first, quantity: 1 }], { idempotencyKey: "k" });
    if (placed.result !== "accepted") throw new Error(`expected accepted, got ${placed.result}`);
    expect(await order("switcher", [{ productId: second, quantity: 1 }], { idempotencyKey: "k" })).toEqual({
      result: "conflict",
      existingId: placed.id,
    });
    expect(await stockOf(second)).toEqual({ available: 10, reserved: 0 });
  });

  it("answers a twin that committed after its twin's refusal was recorded with that refusal, recording nothing", async () => {
    // Two requests with one key on two intakes: the twin held the last units; the other, finding none, had its
    // out_of_stock recorded under the key before the twin's commit came. The key has one answer: the refusal.
    const productId = await newProduct(2, 100);
    const items = [{ productId, quantity: 2 }];
    const twin = requestFor("twins", items, { idempotencyKey: "twin-key" });
    const partition = keys.partitionForUser("twins");
    const twinReservation = {
      product: {
        stateKey: keys.productState(productId),
        reservationsKey: keys.productReservations(productId),
      },
      orderId: twin.orderId,
      userId: "twins",
      units: 2,
    };
    const { held } = await reserveStock.run(redis, twinReservation);
    expect(held).not.toBeNull();
    expect(await order("twins", items, { idempotencyKey: "twin-key" })).toMatchObject({
      result: "out_of_stock",
      lines: [{ line: 1, available: 0 }],
      replayed: false,
    });
    const { code, value, replayed } = await commitOrder.run(redis, {
      keys: orderKeysOf(keys, partition, twin),
      fields: orderFieldsOf(twin),
      reservedAtMs: held!.reservedAtMs,
      commitWindowMs: COMMIT_WINDOW_MS,
      lines: [{ productId, quantity: 2, unitPrice: held!.price, maxUnitsPerUser: held!.maxUnitsPerUser }],
    });
    expect([code, value, replayed]).toEqual([-3, "1:0", true]);
    expect(
      await redis.exists(keys.status(partition, twin.orderId), keys.orderState(partition, twin.orderId)),
    ).toBe(0);
    expect(await unpaid(productId, "twins")).toBe(0);
    // As reserveOrderInTwoSteps does on any answer but accepted: the twin's units go back.
    expect(await releaseStock.run(redis, twinReservation)).toBe(true);
    expect(await stockOf(productId)).toEqual({ available: 2, reserved: 0 });
  });
});

describe("the commit", () => {
  it("refuses a commit later than the window after its reservation, writing nothing", async () => {
    const productId = await newProduct(5, 250);
    const request = requestFor("slow", [{ productId, quantity: 1 }]);
    const partition = keys.partitionForUser("slow");
    const stream = keys.stream(partition);
    const { held } = await reserveStock.run(redis, {
      product: {
        stateKey: keys.productState(productId),
        reservationsKey: keys.productReservations(productId),
      },
      orderId: request.orderId,
      userId: request.userId,
      units: 1,
    });
    expect(held).not.toBeNull();
    const streamLength = await redis.xlen(stream);
    const idempotencyKey = keys.idempotency(partition, "slow", "slow-key");
    const { code } = await commitOrder.run(redis, {
      keys: { ...orderKeysOf(keys, partition, request), idempotencyKey },
      fields: { ...orderFieldsOf(request), idempotencyTtlSeconds: 600 },
      reservedAtMs: held!.reservedAtMs - COMMIT_WINDOW_MS - 1000,
      commitWindowMs: COMMIT_WINDOW_MS,
      lines: [{ productId, quantity: 1, unitPrice: held!.price, maxUnitsPerUser: held!.maxUnitsPerUser }],
    });
    expect(code).toBe(-101);
    expect(
      await redis.exists(
        keys.status(partition, request.orderId),
        keys.orderState(partition, request.orderId),
        idempotencyKey,
        keys.unpaidUnits(productId, "slow"),
      ),
    ).toBe(0);
    expect(await redis.xlen(stream)).toBe(streamLength);
    const entries = await redis.xrange(stream, "-", "+");
    expect(entries.some(([, fields]) => fields.includes(request.orderId))).toBe(false);
    // The reservation stays until the intake (or the sweep) releases it.
    expect(await stockOf(productId)).toEqual({ available: 4, reserved: 1 });
  });
});

describe("the sweep of stock reservations never recorded", () => {
  it("releases units whose order was never recorded and strikes off one whose order was, once", async () => {
    const productId = await newProduct(10);
    const reservations = keys.productReservations(productId);
    // An intake died after the reservation: never recorded.
    const lost = requestFor("orphan", [{ productId, quantity: 3 }]);
    await reserveStock.run(redis, {
      product: { stateKey: keys.productState(productId), reservationsKey: reservations },
      orderId: lost.orderId,
      userId: "orphan",
      units: 3,
    });
    // An order recorded whose ZREM was lost: put its reservation back on the list.
    const kept = await order("recorded", [{ productId, quantity: 2 }]);
    if (kept.result !== "accepted") throw new Error(`expected accepted, got ${kept.result}`);
    await settled(productId, { available: 5, reserved: 1 });
    await redis.zadd(reservations, Date.now(), `${kept.id} recorded 2`);

    // Younger than SWEEP_AFTER_MS: untouched (a commit may still be on its way).
    expect(await sweepStockReservations(redis, keys, [productId], Date.now())).toEqual({
      released: 0,
      confirmed: 0,
    });
    expect(await stockOf(productId)).toEqual({ available: 5, reserved: 2 });
    const later = Date.now() + SWEEP_AFTER_MS + 1000;
    expect(await sweepStockReservations(redis, keys, [productId], later)).toEqual({
      released: 1,
      confirmed: 1,
    });
    expect(await stockOf(productId)).toEqual({ available: 8, reserved: 0 });
    // Again: nothing left to do.
    expect(await sweepStockReservations(redis, keys, [productId], later)).toEqual({
      released: 0,
      confirmed: 0,
    });
    expect(await stockOf(productId)).toEqual({ available: 8, reserved: 0 });
  });
});

describe("the release of an ended order", () => {
  it("returns each product's units once however often the release is sent", async () => {
    const first = await newProduct(10);
    const second = await newProduct(10);
    const items = [
      { productId: first, quantity: 2 },
      { productId: second, quantity: 1 },
      { productId: first, quantity: 1 },
    ];
    const placed = await order("ender", items);
    if (placed.result !== "accepted") throw new Error(`expected accepted, got ${placed.result}`);
    await settled(first, { available: 7, reserved: 0 });
    await settled(second, { available: 9, reserved: 0 });
    expect(await unpaid(first, "ender")).toBe(3);

    const release = { orderId: placed.id, userId: "ender", items };
    await releaseOrders(redis, keys, [release], ORDER_STATE_TTL_SECONDS);
    await releaseOrders(redis, keys, [release], ORDER_STATE_TTL_SECONDS);
    // Two workers redelivered the same release at once.
    await Promise.all([
      releaseOrders(redis, keys, [release], ORDER_STATE_TTL_SECONDS),
      releaseOrders(redis, keys, [release], ORDER_STATE_TTL_SECONDS),
    ]);
    expect(await stockOf(first)).toEqual({ available: 10, reserved: 0 });
    expect(await stockOf(second)).toEqual({ available: 10, reserved: 0 });
    expect(await unpaid(first, "ender")).toBe(0);
    expect(await unpaid(second, "ender")).toBe(0);
    const partition = keys.partitionForUser("ender");
    expect(await redis.hget(keys.orderState(partition, placed.id), "released")).toBe("1");
    // On a cluster each product's return left its marker; one Redis returns the stock in the release script.
    // (One EXISTS per product: their markers are in different slots.)
    for (const productId of [first, second])
      expect(await redis.exists(keys.stockReturned(productId, placed.id))).toBe(redis.isCluster ? 1 : 0);
  });
});
