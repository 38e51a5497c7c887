// Orders sent in one turn of the event loop share one reserve-order-n.lua call on one Redis (turn-batches.ts in
// @floodgate/redis-scripts), each with the answer it would have had alone, in the order they were sent: orders of
// different line counts side by side, a retry behind its first request, stock that runs out inside the call.
// Against the real Redis: how many calls went out, what each order got, and what Redis holds after.
import { newProductId } from "@floodgate/domain";
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { MAX_REQUESTS_PER_CALL } from "@floodgate/redis-scripts";
import {
  countScriptCalls,
  createTestEnvironment,
  type ScriptCalls,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ReserveOrderRequest, reserveOrder, writeProductState } from "../src/index.ts";
import { orderRequest } from "./support/reservation-requests.ts";

let env: TestEnvironment;
let redis: ScriptedRedis;
let keys: QueueKeys;
let scriptCalls: ScriptCalls;

beforeAll(async () => {
  env = await createTestEnvironment("order-batches", { shards: 1 });
  redis = createRedis(env.config.redisUrl, { autoPipelining: true });
  await waitForRedis(redis);
  scriptCalls = countScriptCalls(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
});

afterAll(async () => {
  await redis?.quit();
  await env?.cleanup();
});

beforeEach(() => {
  scriptCalls.reset();
});

async function newProduct(stock: number, price = 1_000) {
  const id = newProductId();
  await writeProductState(redis, keys, { id, price, stock, maxUnitsPerUser: null });
  scriptCalls.reset();
  return id;
}

type Items = ReserveOrderRequest["items"];

const requestFor = (userId: string, items: Items, extra: Partial<ReserveOrderRequest> = {}) =>
  orderRequest(keys, userId, items, extra);

const order = (request: ReserveOrderRequest) => reserveOrder(redis, keys, request);
const available = async (productId: string) =>
  Number(await redis.hget(keys.productState(productId), "available"));

describe("order batches", () => {
  it("sends the orders of one turn as one script call, each answered as if alone and in order", async () => {
    const scarce = await newProduct(3, 1_000);
    const plenty = await newProduct(100, 250);
    const keyed = requestFor("o-keyed", [{ productId: plenty, quantity: 2 }], { idempotencyKey: "K1" });
    const requests = [
      keyed,
      // Its retry (same key and body, a new id as a retrying intake mints one), behind it in the same call.
      { ...requestFor("o-keyed", keyed.items, { idempotencyKey: "K1" }), fingerprint: keyed.fingerprint },
      requestFor("o-two-lines", [
        { productId: scarce, quantity: 2 },
        { productId: plenty, quantity: 4 },
      ]),
      requestFor("o-short", [{ productId: scarce, quantity: 2 }]), // one unit of scarce is left
      requestFor("o-last", [{ productId: scarce, quantity: 1 }]),
      requestFor("o-unknown", [{ productId: newProductId(), quantity: 1 }]),
    ];
    const answers = await Promise.all(requests.map(order));

    expect(scriptCalls.count).toBe(1);
    expect(answers[0]).toMatchObject({ result: "accepted", id: keyed.orderId, amount: 500 });
    expect(answers[1]).toMatchObject({ result: "replayed", id: keyed.orderId });
    expect(answers[2]).toMatchObject({ result: "accepted", id: requests[2]!.orderId, amount: 3_000 });
    expect(answers[3]).toMatchObject({ result: "out_of_stock", lines: [{ line: 1, available: 1 }] });
    expect(answers[4]).toMatchObject({ result: "accepted", id: requests[4]!.orderId, amount: 1_000 });
    expect(answers[5]).toMatchObject({ result: "unknown_product" });

    expect(await available(scarce)).toBe(0);
    expect(await available(plenty)).toBe(100 - 2 - 4);
  });

  it(`sends a full batch of ${MAX_REQUESTS_PER_CALL} at once and the rest at the end of the turn`, async () => {
    const count = MAX_REQUESTS_PER_CALL * 2 + 3;
    const stock = MAX_REQUESTS_PER_CALL + 5;
    const productId = await newProduct(stock);
    const requests = Array.from({ length: count }, (_, i) =>
      requestFor(`full-${i}`, [{ productId, quantity: 1 }]),
    );
    const answers = await Promise.all(requests.map(order));
    expect(scriptCalls.count).toBe(3);
    // First come, first served in the order sent, across the calls: never oversold.
    expect(answers.map((answer) => answer.result)).toEqual([
      ...Array(stock).fill("accepted"),
      ...Array(count - stock).fill("out_of_stock"),
    ]);
    expect(await available(productId)).toBe(0);
  });

  it("answers an order whose part fails with its error alone, and the others of its call as ever", async () => {
    const productId = await newProduct(10);
    // A product state an operator left without `available`: the script's comparison fails for that order.
    const broken = newProductId();
    await redis.hset(keys.productState(broken), "price", 500);
    scriptCalls.reset();
    const answers = await Promise.allSettled([
      order(requestFor("isolated-0", [{ productId, quantity: 1 }])),
      order(requestFor("isolated-1", [{ productId: broken, quantity: 1 }])),
      order(requestFor("isolated-2", [{ productId, quantity: 2 }])),
    ]);
    expect(scriptCalls.count).toBe(1);
    expect(answers[0]).toMatchObject({ status: "fulfilled", value: { result: "accepted" } });
    expect(answers[1]).toMatchObject({ status: "rejected" });
    expect(String((answers[1] as PromiseRejectedResult).reason)).toMatch(/attempt to compare/);
    expect(answers[2]).toMatchObject({ status: "fulfilled", value: { result: "accepted" } });
    expect(await available(productId)).toBe(10 - 1 - 2);
  });

  it("fails every order of a call that fails, and takes no stock for any of them", async () => {
    const productId = await newProduct(10);
    const closed = createRedis(env.config.redisUrl, { autoPipelining: true });
    await waitForRedis(closed);
    await closed.quit();
    const answers = await Promise.allSettled(
      ["failed-0", "failed-1"].map((user) =>
        reserveOrder(closed, keys, requestFor(user, [{ productId, quantity: 1 }])),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(["rejected", "rejected"]);
    expect(await available(productId)).toBe(10);
  });

  it("refuses a call whose blocks do not add up, before any order runs", async () => {
    const productId = await newProduct(10);
    const raw = redis as unknown as { reserveOrder(...argv: (string | number)[]): Promise<unknown> };
    // One line announced, but the keys of none.
    await expect(raw.reserveOrder(1, keys.productState(productId), 1)).rejects.toThrow(
      /reserve-order-n: 1 keys and 1 arguments are not whole orders/,
    );
    expect(await available(productId)).toBe(10);
  });
});
