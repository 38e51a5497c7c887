// Reconcile's repairs on one Redis and on a Redis Cluster: this file runs in both vitest projects. Drift is
// seeded straight into Postgres and Redis (support/state-seeder.ts), with items on every master of a cluster.
// Each slot's repairs go in a WATCH + MULTI of their own: all of them apply; a slot whose keys change between
// the check and its repair is left alone while the others apply; an item with reservations pending (a request
// between its two steps) is reported as in flight, not compared and not repaired.
import { createKysely, type GlobalDatabase, type ShardDatabase } from "@floodgate/db";
import { newCouponId, newProductId } from "@floodgate/domain";
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DriftFinding } from "../src/drift-finding.ts";
import { type ReconcileOptions, type ReconcileReport, reconcile, reportLines } from "../src/index.ts";
import { NodeConnections } from "../src/node-connections.ts";
import { applySlotRepairs } from "../src/slot-repairs.ts";
import { StateSeeder } from "./support/state-seeder.ts";

const onCluster = process.env.FLOODGATE_TEST_REDIS === "cluster";

let env: TestEnvironment;
let redis: ScriptedRedis;
let reconcileRedis: ScriptedRedis;
let keys: QueueKeys;
let global: Kysely<GlobalDatabase>;
let shards: Kysely<ShardDatabase>[];
let seed: StateSeeder;

beforeAll(async () => {
  env = await createTestEnvironment("reconcile-repairs", { shards: 2 });
  redis = createRedis(env.config.redisUrl);
  reconcileRedis = createRedis(env.config.redisUrl, { name: "reconcile-repairs" });
  await Promise.all([waitForRedis(redis), waitForRedis(reconcileRedis)]);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
  global = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 2 });
  shards = env.config.shardUrls.map((url) => createKysely<ShardDatabase>(url, { max: 2 }));
  seed = new StateSeeder(redis, keys, global, shards);
});

afterAll(async () => {
  redis?.disconnect();
  reconcileRedis?.disconnect();
  await Promise.all([global, ...(shards ?? [])].map((db) => db?.destroy()));
  await env?.cleanup();
});

const run = (options: ReconcileOptions = {}) =>
  reconcile({ global, shards, redis: reconcileRedis, keys }, options);

const kinds = (report: ReconcileReport, id: string) =>
  report.findings.filter((finding) => finding.id === id).map((finding) => [finding.kind, finding.outcome]);
const findingOf = (report: ReconcileReport, id: string) => report.findings.find((f) => f.id === id)!;
const productState = (productId: string) => redis.hgetall(keys.productState(productId));

/** The master serving a key's slot, asked of the cluster itself ("the one Redis" outside one). */
async function masterOf(key: string): Promise<string> {
  if (!onCluster) return "the one Redis";
  const slot = (await redis.cluster("KEYSLOT", key)) as number;
  const ranges = await redis.cluster("SLOTS");
  const [host, port] = ranges.find(([from, to]) => slot >= from && slot <= to)![2]!;
  return `${host}:${port}`;
}

/** `count` products of 10 units at 500, the first ones each on a master of its own until every master has one. */
async function productsOnEveryMaster(count: number): Promise<string[]> {
  const masters = onCluster ? 3 : 1;
  const covered = new Set<string>();
  const ids: string[] = [];
  for (let tries = 0; ids.length < count; tries++) {
    if (tries > 1000) throw new Error("no product ids found on every master");
    const id = newProductId();
    const master = await masterOf(keys.productState(id));
    if (covered.size < masters && covered.has(master)) continue;
    covered.add(master);
    ids.push(id);
  }
  for (const id of ids) await seed.product(10, 500, id);
  return ids;
}

async function expectClean() {
  const report = await run();
  expect(report.redisSkipped).toBeNull();
  expect(report.findings).toEqual([]);
}

describe("repairs, one transaction per slot", () => {
  it("sets right products and a coupon on every master, its redemption records in every partition", async () => {
    const [wrongAvailable, wrongPrice, deleted] = await productsOnEveryMaster(3);
    await redis.hset(keys.productState(wrongAvailable!), "available", 40);
    await redis.hset(keys.productState(wrongPrice!), "price", 1);
    await redis.del(keys.productState(deleted!));
    const couponId = await seed.coupon(30);
    const users = Array.from({ length: 24 }, (_, i) => `holder-${i}`);
    const issues = new Map<string, string>();
    for (const user of users) issues.set(user, await seed.issue(couponId, user));
    const records = users.map((user) => seed.recordKey(issues.get(user)!, user));
    if (onCluster) expect(new Set(await Promise.all(records.map(masterOf))).size).toBe(3);
    const recordsBefore = await Promise.all(records.map((key) => redis.hgetall(key)));

    await redis.hset(keys.couponState(couponId), "issued", 5);
    await redis.hdel(keys.couponHolders(couponId), "holder-1", "holder-2");
    await redis.hset(keys.couponHolders(couponId), "ghost", "cis_nobody");
    for (const key of records.slice(3, 6)) await redis.del(key); // one slot per call, as a cluster requires
    await redis.hset(records[6]!, "orderId", "ord_nobody");
    await redis.hset(records[7]!, "discountValue", "99");

    const report = await run();
    expect(report.redisSkipped).toBeNull();
    expect(kinds(report, wrongAvailable!)).toEqual([["product_available", "repaired"]]);
    expect(kinds(report, wrongPrice!)).toEqual([["product_price", "repaired"]]);
    expect(kinds(report, deleted!)).toEqual([["product_state_missing", "repaired"]]);
    expect(kinds(report, couponId)).toEqual([
      ["coupon_issued_count", "repaired"],
      ["coupon_holders", "repaired"],
      ["coupon_issue_records", "repaired"],
    ]);
    expect(report).toMatchObject({ drift: 6, repaired: 6, unrepaired: 0 });
    for (const id of [wrongAvailable!, wrongPrice!, deleted!]) {
      expect(await productState(id)).toEqual({ price: "500", available: "10" });
    }
    expect(await redis.hget(keys.couponState(couponId), "issued")).toBe("24");
    expect(await redis.hgetall(keys.couponHolders(couponId))).toEqual(Object.fromEntries(issues));
    expect(await Promise.all(records.map((key) => redis.hgetall(key)))).toEqual(recordsBefore);
    await expectClean();
  });
});

describe("a slot that changes between the check and its repair", () => {
  it("is left alone, and says so, while the other slots' repairs apply", async () => {
    const [restocked, reserved, untouched] = await productsOnEveryMaster(3);
    for (const id of [restocked!, reserved!, untouched!]) {
      await redis.hset(keys.productState(id), "available", 40);
    }
    const couponId = await seed.coupon(5);
    await seed.issue(couponId, "ann");
    await redis.hset(keys.couponState(couponId), "issued", 3);

    let moved = false;
    const report = await run({
      attempts: 1,
      // Once every product is checked and before the repairs: an admin's stockAdded on one product, and the
      // first step of an order (units reserved in its slot, on a cluster) on another.
      onProgress: async ({ phase }) => {
        if (phase !== "coupons" || moved) return;
        moved = true;
        await redis.hincrby(keys.productState(restocked!), "available", 5);
        await redis.zadd(keys.productReservations(reserved!), Date.now(), "ord_in_flight");
      },
    });
    expect(moved).toBe(true);
    expect(report.redisSkipped).toBeNull();
    expect(kinds(report, restocked!)).toEqual([["product_available", "not_repaired"]]);
    expect(kinds(report, reserved!)).toEqual([["product_available", "not_repaired"]]);
    expect(findingOf(report, restocked!).notApplied).toBe(
      `product ${restocked} changed between the check and the repair; run again`,
    );
    expect(findingOf(report, reserved!).notApplied).toMatch(`product ${reserved} changed`);
    expect(kinds(report, untouched!)).toEqual([["product_available", "repaired"]]);
    expect(kinds(report, couponId)).toEqual([["coupon_issued_count", "repaired"]]);
    expect(report).toMatchObject({ drift: 4, repaired: 2, unrepaired: 2 });
    expect(reportLines(report)).toContain(
      `drift product ${restocked} product_available: redis available 40, postgres stock 10 -> not repaired: ` +
        `product ${restocked} changed between the check and the repair; run again`,
    );
    expect(await productState(restocked!)).toMatchObject({ available: "45" });
    expect(await productState(reserved!)).toMatchObject({ available: "40" });
    expect(await productState(untouched!)).toMatchObject({ available: "10" });
    expect(await redis.hget(keys.couponState(couponId), "issued")).toBe("1");

    await redis.del(keys.productReservations(reserved!));
    await run();
    await expectClean();
  });

  it("with attempts left is checked again and repaired, and the report keeps what the first attempt repaired", async () => {
    const [changing, steady] = await productsOnEveryMaster(2);
    await redis.hset(keys.productState(changing!), "available", 40);
    await redis.hset(keys.productState(steady!), "available", 30);
    let changes = 0;
    const report = await run({
      onProgress: async ({ phase }) => {
        if (phase !== "products" || changes > 0) return;
        changes++;
        await redis.hset(keys.productState(changing!), "available", 41);
      },
    });
    expect(changes).toBe(1);
    expect(kinds(report, changing!)).toEqual([["product_available", "repaired"]]);
    expect(kinds(report, steady!)).toEqual([["product_available", "repaired"]]);
    expect(report).toMatchObject({ drift: 2, repaired: 2, unrepaired: 0 });
    expect(await productState(changing!)).toMatchObject({ available: "10" });
    expect(await productState(steady!)).toMatchObject({ available: "10" });
    await expectClean();
  });

  it("is caught by its WATCH when the write lands after it: the WATCH and the EXEC share one connection", async () => {
    const [first, second] = await productsOnEveryMaster(2);
    const finding = (productId: string, onRead: () => Promise<unknown>): DriftFinding => ({
      subject: "product",
      id: productId,
      kind: "product_available",
      detail: "made by the test",
      needsDrained: true,
      repair: {
        summary: "available = 1",
        writes: [
          {
            read: {
              slot: `product ${productId}`,
              keys: [keys.productState(productId)],
              seen: "as read",
              // Runs between the slot's WATCH and its MULTI; the write goes through another connection.
              read: async () => {
                await onRead();
                return "as read";
              },
            },
            write: (tx) => tx.hset(keys.productState(productId), "available", 1),
          },
        ],
      },
    });
    const connections = new NodeConnections(reconcileRedis);
    try {
      const changed = await applySlotRepairs(connections, [
        finding(first!, () => redis.hset(keys.productState(first!), "available", 7)),
        finding(second!, async () => {}),
      ]);
      expect([...changed]).toEqual([`product ${first}`]);
    } finally {
      connections.close();
    }
    expect(await productState(first!)).toMatchObject({ available: "7" });
    expect(await productState(second!)).toMatchObject({ available: "1" });
    for (const id of [first!, second!]) await redis.hset(keys.productState(id), "available", 10);
  });
});

describe("an item with reservations pending", () => {
  it("is reported in flight, neither compared nor repaired, until its reservations are gone", async () => {
    const [productId] = await productsOnEveryMaster(1);
    const couponId = await seed.coupon(5);
    await seed.issue(couponId, "bea");
    await redis.hset(keys.productState(productId!), "available", 8);
    await redis.hset(keys.couponState(couponId), "issued", 2);
    await redis.zadd(keys.productReservations(productId!), Date.now(), "ord_one", Date.now(), "ord_two");
    await redis.zadd(keys.couponReservations(couponId), Date.now(), "cis_one");

    const report = await run();
    expect(report.redisSkipped).toBeNull();
    expect(kinds(report, productId!)).toEqual([["reservations_pending", "not_repaired"]]);
    expect(kinds(report, couponId)).toEqual([["reservations_pending", "not_repaired"]]);
    expect(findingOf(report, productId!).detail).toBe("in flight: 2 reservations pending");
    expect(reportLines(report)).toContain(
      `drift coupon ${couponId} reservations_pending: in flight: 1 reservations pending -> not repaired: ` +
        "needs the queue drained (the requests recorded, or the sweep giving the units back); run again",
    );
    expect(report).toMatchObject({ drift: 2, repaired: 0, unrepaired: 2 });
    expect(await productState(productId!)).toMatchObject({ available: "8" });
    expect(await redis.hget(keys.couponState(couponId), "issued")).toBe("2");

    // The sweep gives the units back (here: the reservations simply end), and the next run compares and repairs.
    await redis.del(keys.productReservations(productId!));
    await redis.del(keys.couponReservations(couponId));
    const after = await run();
    expect(kinds(after, productId!)).toEqual([["product_available", "repaired"]]);
    expect(kinds(after, couponId)).toEqual([["coupon_issued_count", "repaired"]]);
    await expectClean();
  });

  it("keeps its key names: the coupon's and the product's own slot", () => {
    const couponId = newCouponId();
    const productId = newProductId();
    expect(keys.couponReservations(couponId)).toBe(`${keys.prefix}{${couponId}}:reservations`);
    expect(keys.productReservations(productId)).toBe(`${keys.prefix}{${productId}}:reservations`);
  });
});
