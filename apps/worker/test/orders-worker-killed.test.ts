// The order invariants when workers are SIGKILLed in the worst place: the batch's global stock is reserved
// (the ledger committed), the shard that records its orders is still waiting, nothing is acknowledged.
// Redelivered, the ledger moves nothing twice and the shard records each order once. A mixed load of orders,
// coupons, payments and cancels runs through it; afterwards every product and coupon adds up.
import { createKysely, type GlobalDatabase, type ShardDatabase } from "@floodgate/db";
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { bucketForUser, ShardMap } from "@floodgate/shard-router";
import {
  createTestEnvironment,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, createCoupon, requestIssue } from "./support/coupon-client.ts";
import { deposit, type IntakeApp, startIntake } from "./support/intake-client.ts";
import { cancelOrder, createProduct, payOrder, placeOrder, stockState } from "./support/order-client.ts";
import { deadLetters, unfinishedCount } from "./support/queue-inspection.ts";
import { waitFor } from "./support/wait-for.ts";
import { lockWallet } from "./support/wallet-lock.ts";

const USERS = 120;
const HOT_USER = "killer-0";
let env: TestEnvironment;
let app: IntakeApp;
let redis: ScriptedRedis;
let keys: QueueKeys;
let global: Kysely<GlobalDatabase>;
let shards: Kysely<ShardDatabase>[];
let workers: WorkerProcess[] = [];
let products: string[] = [];
let couponId: string;
let reservedButUnrecorded: string[] = [];
const accepted: { id: string; userId: string; amount: number }[] = [];
const cancelled = new Set<string>();
const paid = new Map<string, string>(); // order id -> payment id

const shardOrderIds = async () =>
  (await Promise.all(shards.map((db) => db.selectFrom("orders").select("id").execute())))
    .flat()
    .map((r) => r.id);

beforeAll(async () => {
  env = await createTestEnvironment("orders-killed", {
    env: { ADMIN_API_KEY: ADMIN_KEY, VISIBILITY_TIMEOUT_MS: "4000", MAX_DELIVERIES: "3" },
  });
  app = await startIntake(env.config);
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
  global = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 1 });
  shards = env.config.shardUrls.map((url) => createKysely<ShardDatabase>(url, { max: 1 }));

  products = [await createProduct(app, 150, 1_000), await createProduct(app, 90, 2_500)];
  couponId = await createCoupon(app, 30);
  const users = Array.from({ length: USERS }, (_, i) => `killer-${i}`);
  const couponOf = new Map<string, string>();
  for (const userId of users.slice(0, 40)) {
    const issue = await requestIssue(app, couponId, userId);
    if (issue.statusCode === 202) couponOf.set(userId, issue.json().id);
  }
  await Promise.all(users.map((u) => deposit(app, u, 20_000)));
  // Three orders per user, more than the stock: the rest are refused with 409.
  for (let round = 0; round < 3; round++) {
    const responses = await Promise.all(
      users.map((userId, i) => {
        const items = [{ productId: products[(i + round) % 2]!, quantity: 1 + ((i + round) % 3) }];
        if (i % 4 === 0) items.push({ productId: products[(i + round + 1) % 2]!, quantity: 1 });
        const couponIssueId = round === 0 ? couponOf.get(userId) : undefined;
        return placeOrder(app, { userId, items, ...(couponIssueId ? { couponIssueId } : {}) });
      }),
    );
    for (const [i, response] of responses.entries()) {
      if (response.statusCode === 202) accepted.push({ ...response.json(), userId: users[i]! });
      else expect(response.json().code).toBe("out_of_stock");
    }
  }
  // Pay a third, cancel a fifth of the others, leave the rest awaiting payment.
  for (const [i, order] of accepted.entries()) {
    if (i % 3 === 0) paid.set(order.id, await payOrder(app, order.userId, order.id, order.amount));
    else if (i % 5 === 0 && (await cancelOrder(app, order.id)).statusCode === 202) cancelled.add(order.id);
  }

  // The hot user's shard waits on a wallet lock: its orders' stock is reserved, their rows are not written.
  const hotShard = ShardMap.contiguous(env.config.shardUrls.length).shardForBucket(bucketForUser(HOT_USER));
  const lock = await lockWallet(env.config.shardUrls[hotShard]!, HOT_USER);
  try {
    workers = [await startWorkerProcess(env.config), await startWorkerProcess(env.config)];
    await waitFor(async () => {
      const reserved = await sql<{ order_id: string }>`
        select distinct order_id from stock_movements where direction = 'reserve'`.execute(global);
      const recorded = new Set(await shardOrderIds());
      reservedButUnrecorded = reserved.rows.map((r) => r.order_id).filter((id) => !recorded.has(id));
      return reservedButUnrecorded.length > 0;
    }, "a batch whose stock is reserved but whose orders are not recorded");
    await Promise.all(workers.map((w) => w.kill()));
  } finally {
    await lock.release();
  }
  workers = [await startWorkerProcess(env.config), await startWorkerProcess(env.config)];
  await waitFor(
    async () =>
      (await unfinishedCount(redis, keys)) === 0 && (await shardOrderIds()).length === accepted.length,
    "every order recorded and every entry acknowledged",
    60_000,
  );
  // Cancels and payments queued behind the orders settle too.
  await waitFor(async () => (await unfinishedCount(redis, keys)) === 0, "the queue to drain");
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await app?.close();
  redis?.disconnect();
  await Promise.all([global, ...(shards ?? [])].map((db) => db?.destroy()));
  await env?.cleanup();
});

describe("orders when workers are SIGKILLed between the stock reservation and the shard commit", () => {
  it("killed them in that window (the case being tested)", () => {
    expect(reservedButUnrecorded.length).toBeGreaterThan(0);
  });

  it("records every accepted order exactly once, in the state its payment or cancel left it", async () => {
    const rows = (
      await Promise.all(
        shards.map((db) => db.selectFrom("orders").select(["id", "status", "payment_id"]).execute()),
      )
    ).flat();
    expect(rows.map((r) => r.id).sort()).toEqual(accepted.map((a) => a.id).sort());
    for (const row of rows) {
      if (paid.has(row.id)) expect(row).toMatchObject({ status: "paid", payment_id: paid.get(row.id) });
      else if (cancelled.has(row.id)) expect(row.status).toBe("cancelled");
      else expect(row.status).toBe("awaiting_payment");
    }
    const payments = (
      await Promise.all(
        shards.map((db) =>
          db
            .selectFrom("payments")
            .select(["order_id", "status"])
            .where("order_id", "is not", null)
            .execute(),
        ),
      )
    ).flat();
    expect(payments.filter((p) => p.status === "succeeded")).toHaveLength(paid.size);
    expect(await deadLetters(redis, keys)).toEqual([]);
  });

  it("keeps every product's units: received = stock + live orders, the ledger agrees, Redis equals Postgres", async () => {
    for (const state of await stockState(global, shards, redis, keys, products)) {
      expect(state.received).toBe(state.stock + state.liveOrderUnits);
      expect(state.ledgerUnits).toBe(state.liveOrderUnits);
      expect(state.available).toBe(state.stock);
      expect(state.stock).toBeGreaterThanOrEqual(0);
    }
  });

  it("uses each coupon at most once, and only by a live order", async () => {
    const coupons = (
      await Promise.all(
        shards.map((db) =>
          db
            .selectFrom("issued_coupons")
            .select(["id", "status", "order_id"])
            .where("coupon_id", "=", couponId)
            .execute(),
        ),
      )
    ).flat();
    expect(coupons.length).toBeLessThanOrEqual(30);
    const orders = (
      await Promise.all(
        shards.map((db) =>
          db
            .selectFrom("orders")
            .select(["id", "status", "coupon_issue_id"])
            .where("coupon_issue_id", "is not", null)
            .execute(),
        ),
      )
    ).flat();
    const liveByCoupon = new Map<string, string[]>();
    for (const order of orders) {
      if (order.status !== "awaiting_payment" && order.status !== "paid") continue;
      liveByCoupon.set(order.coupon_issue_id!, [
        ...(liveByCoupon.get(order.coupon_issue_id!) ?? []),
        order.id,
      ]);
    }
    expect(orders.length).toBeGreaterThan(0);
    for (const coupon of coupons) {
      const live = liveByCoupon.get(coupon.id) ?? [];
      expect(live.length).toBeLessThanOrEqual(1);
      if (live.length === 1) expect(coupon).toMatchObject({ status: "used", order_id: live[0] });
      else expect(coupon).toMatchObject({ status: "issued", order_id: null });
    }
  });
});
