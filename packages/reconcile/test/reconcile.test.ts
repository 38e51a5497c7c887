// Reconcile against the real Redis, Postgres shards and a real worker process: a system the workers brought
// to rest shows no drift; Redis state that was deleted or changed behind the system's back is rebuilt from
// Postgres; Postgres-side drift is reported and left alone; a dry run writes nothing; and nothing is repaired
// from a moving target (entries in flight, a stream that moved, a key that changed during the check).
import { createKysely, type GlobalDatabase, type ShardDatabase } from "@floodgate/db";
import { newOperationId } from "@floodgate/domain";
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { bucketForUser } from "@floodgate/shard-router";
import {
  createTestEnvironment,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ReconcileOptions,
  type ReconcileProgress,
  type ReconcileReport,
  readQueueActivity,
  reconcile,
  reconcileExitCode,
} from "../src/index.ts";
import { CheckoutClient } from "./support/checkout-client.ts";

let env: TestEnvironment;
let redis: ScriptedRedis;
let reconcileRedis: ScriptedRedis;
let keys: QueueKeys;
let global: Kysely<GlobalDatabase>;
let shards: Kysely<ShardDatabase>[];
let worker: WorkerProcess;
let client: CheckoutClient;

beforeAll(async () => {
  env = await createTestEnvironment("reconcile", { shards: 2 });
  redis = createRedis(env.config.redisUrl);
  reconcileRedis = createRedis(env.config.redisUrl);
  await Promise.all([waitForRedis(redis), waitForRedis(reconcileRedis)]);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
  global = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 2 });
  shards = env.config.shardUrls.map((url) => createKysely<ShardDatabase>(url, { max: 2 }));
  client = new CheckoutClient(env.config, redis, keys, global);
  worker = await startWorkerProcess(env.config);
});

afterAll(async () => {
  await worker?.stop();
  redis?.disconnect();
  reconcileRedis?.disconnect();
  await Promise.all([global, ...(shards ?? [])].map((db) => db?.destroy()));
  await env?.cleanup();
});

const run = (options: ReconcileOptions = {}) =>
  reconcile({ global, shards, redis: reconcileRedis, keys }, options);

async function drained() {
  const deadline = Date.now() + 45_000;
  while (!(await readQueueActivity(redis, keys)).drained) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the queue to drain");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const kinds = (report: ReconcileReport, id: string) =>
  report.findings.filter((finding) => finding.id === id).map((finding) => [finding.kind, finding.outcome]);
const productState = (productId: string) => redis.hgetall(keys.productState(productId));
const stockOf = async (productId: string) =>
  (await global.selectFrom("products").select("stock").where("id", "=", productId).executeTakeFirstOrThrow())
    .stock;

async function shardHolding(orderId: string) {
  for (const db of shards) {
    if (await db.selectFrom("orders").select("id").where("id", "=", orderId).executeTakeFirst()) return db;
  }
  throw new Error(`order ${orderId} is on no shard`);
}

async function expectClean() {
  const report = await run();
  expect(report.findings).toEqual([]);
  expect(report.redisSkipped).toBeNull();
  return report;
}

describe("a system at rest", () => {
  it("shows no drift after coupons issued and orders placed (one with a coupon) and cancelled", async () => {
    const shoes = await client.createProduct(10, 5_000);
    const socks = await client.createProduct(50, 500);
    const couponId = await client.createCoupon(3);
    const issues = await Promise.all(["ann", "bob", "cyd"].map((user) => client.issue(couponId, user)));
    await drained();
    const anns = await client.placeOrder("ann", [{ productId: shoes, quantity: 2 }], issues[0]);
    const bobs = await client.placeOrder("bob", [
      { productId: shoes, quantity: 1 },
      { productId: socks, quantity: 4 },
    ]);
    const cyds = await client.placeOrder("cyd", [{ productId: socks, quantity: 3 }], issues[2]);
    await drained();
    await client.endOrder(bobs);
    await client.endOrder(cyds);
    await drained();

    const progress: ReconcileProgress[] = [];
    const report = await run({
      onProgress: (p) => {
        progress.push(p);
      },
    });
    expect(report).toMatchObject({ drift: 0, repaired: 0, unrepaired: 0, redisSkipped: null, dryRun: false });
    expect(report.findings).toEqual([]);
    expect(report.productsChecked).toBeGreaterThanOrEqual(2);
    expect(report.couponsChecked).toBeGreaterThanOrEqual(1);
    expect(reconcileExitCode(report)).toBe(0);
    expect(progress.at(-1)).toEqual({
      phase: "coupons",
      done: report.couponsChecked,
      total: report.couponsChecked,
    });
    // What the run compared really holds: ann's order keeps 2 shoes, unpaid still; the cancelled ones gave theirs
    // back, and stopped counting as unpaid.
    expect(await productState(shoes)).toEqual({
      price: "5000",
      available: "8",
      unpaid: "2",
      [`unpaid:${anns}`]: "2",
    });
    expect(await stockOf(socks)).toBe(50);
  });
});

describe("Redis repaired from Postgres", () => {
  it("rebuilds a deleted product state with Postgres' price and stock, and the units of unpaid orders", async () => {
    const productId = await client.createProduct(20, 1_200);
    const dees = await client.placeOrder("dee", [{ productId, quantity: 5 }]);
    await drained();
    await redis.del(keys.productState(productId));

    const report = await run();
    expect(kinds(report, productId)).toEqual([["product_state_missing", "repaired"]]);
    expect(report).toMatchObject({ drift: 1, repaired: 1, unrepaired: 0 });
    expect(reconcileExitCode(report)).toBe(0);
    // Dee's order, unpaid, may still give its units back: without them a room selling the product would say sold
    // out while units can come back.
    expect(await productState(productId)).toEqual({
      price: "1200",
      available: "15",
      unpaid: "5",
      [`unpaid:${dees}`]: "5",
    });
    await expectClean();
  });

  it("rebuilds a product's own maxUnitsPerUser with its state, and sets a wrong or stray one from Postgres", async () => {
    const capped = await client.createProduct(20, 1_000, 4);
    const uncapped = await client.createProduct(20, 1_000);
    const fays = await client.placeOrder("fay", [{ productId: capped, quantity: 3 }]);
    await drained();
    await redis.del(keys.productState(capped));
    await redis.hset(keys.productState(uncapped), "maxUnitsPerUser", 2); // a cap Postgres does not have

    const report = await run();
    expect(kinds(report, capped)).toEqual([["product_state_missing", "repaired"]]);
    expect(kinds(report, uncapped)).toEqual([["product_max_units", "repaired"]]);
    expect(await productState(capped)).toEqual({
      price: "1000",
      available: "17",
      maxUnitsPerUser: "4",
      unpaid: "3",
      [`unpaid:${fays}`]: "3",
    });
    expect(await productState(uncapped)).toEqual({ price: "1000", available: "20" });

    await redis.hset(keys.productState(capped), "maxUnitsPerUser", 9);
    expect(kinds(await run(), capped)).toEqual([["product_max_units", "repaired"]]);
    expect(await productState(capped)).toMatchObject({ maxUnitsPerUser: "4" });
    await expectClean();
  });

  it("sets the unpaid units from the orders awaiting payment: a lost order's field, a stray one, a wrong sum", async () => {
    const productId = await client.createProduct(10, 500);
    const gus = await client.placeOrder("gus", [{ productId, quantity: 2 }]);
    const hal = await client.placeOrder("hal", [{ productId, quantity: 1 }]);
    await drained();
    const state = keys.productState(productId);
    await redis.hdel(state, `unpaid:${gus}`);
    await redis.hset(state, "unpaid", 9, "unpaid:ord_gone", 4);

    const report = await run();
    expect(kinds(report, productId)).toEqual([["product_unpaid", "repaired"]]);
    expect(await productState(productId)).toEqual({
      price: "500",
      available: "7",
      unpaid: "3",
      [`unpaid:${gus}`]: "2",
      [`unpaid:${hal}`]: "1",
    });
    await expectClean();
  });

  it("sets a wrong available back to the Postgres stock and a wrong price to Postgres' price", async () => {
    const productId = await client.createProduct(7, 900);
    const eves = await client.placeOrder("eve", [{ productId, quantity: 2 }]);
    await drained();
    await redis.hset(keys.productState(productId), "available", 40, "price", 1);

    const report = await run();
    expect(kinds(report, productId)).toEqual([
      ["product_price", "repaired"],
      ["product_available", "repaired"],
    ]);
    // Eve's order, unpaid, still counts there: reconcile repairs price and available only.
    expect(await productState(productId)).toEqual({
      price: "900",
      available: "5",
      unpaid: "2",
      [`unpaid:${eves}`]: "2",
    });
    await expectClean();
  });

  it("sets a coupon's issued count, holders and redemption records from the shards' issues", async () => {
    const productId = await client.createProduct(10);
    const couponId = await client.createCoupon(5);
    const [fay, gus] = [await client.issue(couponId, "fay"), await client.issue(couponId, "gus")];
    await drained();
    const order = await client.placeOrder("fay", [{ productId, quantity: 1 }], fay);
    await drained();
    const fayRecord = keys.couponIssue(keys.partitionForUser("fay"), fay);
    const gusRecord = keys.couponIssue(keys.partitionForUser("gus"), gus);
    expect(await redis.hget(fayRecord, "orderId")).toBe(order);
    const gusBefore = await redis.hgetall(gusRecord);

    await redis.hset(keys.couponState(couponId), "issued", 4);
    await redis.hdel(keys.couponHolders(couponId), "gus");
    await redis.hset(keys.couponHolders(couponId), "ghost", "cis_nobody");
    await redis.hdel(fayRecord, "orderId");
    await redis.del(gusRecord);

    const report = await run();
    expect(kinds(report, couponId)).toEqual([
      ["coupon_issued_count", "repaired"],
      ["coupon_holders", "repaired"],
      ["coupon_issue_records", "repaired"],
    ]);
    expect(await redis.hget(keys.couponState(couponId), "issued")).toBe("2");
    expect(await redis.hgetall(keys.couponHolders(couponId))).toEqual({ fay, gus });
    expect(await redis.hget(fayRecord, "orderId")).toBe(order);
    expect(await redis.hgetall(gusRecord)).toEqual(gusBefore);
    await expectClean();
    // The repaired state works: the count leaves 3 more, and nobody holds the coupon twice.
    await expect(client.issue(couponId, "gus")).rejects.toThrow(/already_issued/);
  });

  it("rebuilds a deleted coupon state and its holders from the definition and the issues", async () => {
    const couponId = await client.createCoupon(2);
    const hal = await client.issue(couponId, "hal");
    await drained();
    await redis.del(keys.couponState(couponId), keys.couponHolders(couponId));

    const report = await run();
    expect(kinds(report, couponId)).toEqual([
      ["coupon_state_missing", "repaired"],
      ["coupon_holders", "repaired"],
    ]);
    expect(await redis.hgetall(keys.couponState(couponId))).toEqual({
      quantity: "2",
      startsAt: "",
      endsAt: "",
      issued: "1",
    });
    expect(await redis.hgetall(keys.couponHolders(couponId))).toEqual({ hal });
    await client.issue(couponId, "ida");
    await expect(client.issue(couponId, "jon")).rejects.toThrow(/sold_out/);
    await drained();
    await expectClean();
  });
});

describe("reporting without repairing", () => {
  it("in a dry run reports what it would repair and writes nothing", async () => {
    const productId = await client.createProduct(6, 300);
    await redis.hset(keys.productState(productId), "available", 2);

    const report = await run({ dryRun: true });
    expect(kinds(report, productId)).toEqual([["product_available", "would_repair"]]);
    expect(report).toMatchObject({ dryRun: true, drift: 1, repaired: 0, unrepaired: 0 });
    expect(reconcileExitCode(report)).toBe(1);
    expect(await productState(productId)).toEqual({ price: "300", available: "2" });

    await run();
    expect(await productState(productId)).toEqual({ price: "300", available: "6" });
  });

  it("reports Postgres-side drift for a person and leaves Postgres and Redis as they are", async () => {
    const productId = await client.createProduct(9);
    const couponId = await client.createCoupon(2);
    await client.issue(couponId, "kim");
    await client.issue(couponId, "lee");
    await drained();
    await global.updateTable("products").set({ stock: 4 }).where("id", "=", productId).execute();
    await global.updateTable("coupons").set({ quantity: 1 }).where("id", "=", couponId).execute();

    const report = await run();
    expect(kinds(report, productId)).toEqual([
      ["product_ledger", "needs_human"],
      ["product_available", "repaired"],
    ]);
    expect(kinds(report, couponId)).toEqual([
      ["coupon_over_issued", "needs_human"],
      ["coupon_definition", "repaired"],
    ]);
    expect(report.unrepaired).toBe(2);
    expect(reconcileExitCode(report)).toBe(1);
    expect(await stockOf(productId)).toBe(4);
    // Redis follows Postgres, the truth, even there: never more on sale than Postgres holds.
    expect(await productState(productId)).toMatchObject({ available: "4" });

    await global.updateTable("products").set({ stock: 9 }).where("id", "=", productId).execute();
    await global.updateTable("coupons").set({ quantity: 2 }).where("id", "=", couponId).execute();
    await run();
    await expectClean();
  });

  it("reports a coupon issue that two live orders use", async () => {
    const productId = await client.createProduct(5);
    const couponId = await client.createCoupon(1);
    const issue = await client.issue(couponId, "lou");
    await drained();
    const order = await client.placeOrder("lou", [{ productId, quantity: 1 }], issue);
    await drained();
    // A second live order naming the same issue, as only a manual edit (or a bug) could make.
    const db = await shardHolding(order);
    const copy = newOperationId("order", bucketForUser("lou"));
    await sql`insert into orders (id, user_id, status, amount, discount, currency, coupon_issue_id, expires_at, created_at)
              select ${copy}, user_id, status, amount, discount, currency, coupon_issue_id, expires_at, created_at
              from orders where id = ${order}`.execute(db);

    const report = await run();
    const finding = report.findings.find((f) => f.id === issue);
    expect(finding).toMatchObject({
      subject: "coupon_issue",
      kind: "coupon_issue_use",
      outcome: "needs_human",
    });
    expect(finding!.detail).toContain(`used by 2 live orders`);
    expect(finding!.detail).toContain(copy);
    await db.deleteFrom("orders").where("id", "=", copy).execute();
    await expectClean();
  });
});

describe("a moving target", () => {
  it("repairs nothing when the queue moves during the check", async () => {
    const productId = await client.createProduct(10);
    await redis.hset(keys.productState(productId), "available", 999);
    let placed = false;
    const report = await run({
      attempts: 1,
      onProgress: async () => {
        if (placed) return;
        placed = true;
        await client.placeOrder("max", [{ productId, quantity: 1 }]);
      },
    });
    expect(report.redisSkipped).toMatch(/changed during each of 1 checks/);
    expect(kinds(report, productId)).toEqual([]);
    await drained();
    // The order's reservation was not overwritten with a value read before it.
    expect(await productState(productId)).toMatchObject({ available: "998" });
    expect(await stockOf(productId)).toBe(9);

    const again = await run();
    expect(kinds(again, productId)).toEqual([["product_available", "repaired"]]);
    expect(await productState(productId)).toMatchObject({ available: "9" });
  });

  it("does not repair a product whose state changes between the check and the repair", async () => {
    const productId = await client.createProduct(10, 700);
    await redis.hset(keys.productState(productId), "available", 3);
    let changed = false;
    const report = await run({
      attempts: 1,
      onProgress: async () => {
        if (changed) return;
        changed = true;
        await redis.hincrby(keys.productState(productId), "available", 5); // an admin's stockAdded
      },
    });
    // Compared (the queue did not move), but the product's slot changed after it was read: its group wrote
    // nothing, and the finding says why.
    expect(report.redisSkipped).toBeNull();
    expect(kinds(report, productId)).toEqual([["product_available", "not_repaired"]]);
    expect(report.findings.find((f) => f.id === productId)!.notApplied).toMatch(
      `product ${productId} changed between the check and the repair`,
    );
    expect(report.unrepaired).toBeGreaterThanOrEqual(1);
    expect(await productState(productId)).toMatchObject({ available: "8" });
    await run();
    await expectClean();
  });

  it("with entries in flight checks Postgres only and says how many are in flight", async () => {
    const productId = await client.createProduct(10);
    await worker.stop();
    await client.placeOrder("ned", [{ productId, quantity: 2 }]);
    await redis.hset(keys.productState(productId), "available", 100);
    await global.updateTable("products").set({ stock: 7 }).where("id", "=", productId).execute();

    const report = await run();
    expect(report.redisSkipped).toBe(
      "the queue is not drained: 1 entries in flight (0 pending, 1 undelivered)",
    );
    expect(kinds(report, productId)).toEqual([["product_ledger", "needs_human"]]);
    expect(await productState(productId)).toMatchObject({ available: "100" });
    await global.updateTable("products").set({ stock: 10 }).where("id", "=", productId).execute();
  });
});
