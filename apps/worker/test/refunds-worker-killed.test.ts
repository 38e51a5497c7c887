// Exactly once for refunds when a worker is SIGKILLed mid-batch: some of its shard transactions committed
// refunds whose acknowledgements never reached Redis (a TCP proxy in front of Redis holds what the worker
// sends to finish a batch), another waits on a wallet's row lock. The entries are reclaimed after the
// visibility timeout, the shards recognise the applied refunds by id, and every wallet, payment total, order
// and unit of stock ends as if each refund had been applied once.
import { createKysely, type GlobalDatabase, type ShardDatabase } from "@floodgate/db";
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { finishOperations, scriptSha } from "@floodgate/redis-scripts";
import { bucketForUser, ShardMap } from "@floodgate/shard-router";
import {
  createTestEnvironment,
  startTcpProxy,
  startWorkerProcess,
  type TcpProxy,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY } from "./support/coupon-client.ts";
import { deposit, type IntakeApp, pay, startIntake } from "./support/intake-client.ts";
import { createProduct, payOrder, placeOrder, stockState } from "./support/order-client.ts";
import {
  appliedButUnacknowledged,
  deadLetters,
  pendingCount,
  pendingEntries,
} from "./support/queue-inspection.ts";
import { refund, runReconcile, settledViews } from "./support/refund-client.ts";
import { waitFor } from "./support/wait-for.ts";
import { lockWallet } from "./support/wallet-lock.ts";
import { consumerOf } from "./support/worker-consumer.ts";

const USERS = 60;
const REFUNDS_PER_USER = 3; // of 1,500 each, of a 6,000 payment: all fit
const BUYERS = 20; // each a paid order of 2 units, refunded in full with restock
const HOT_USER = "rk-user-0";

let env: TestEnvironment;
let app: IntakeApp;
let redis: ScriptedRedis;
let keys: QueueKeys;
let global: Kysely<GlobalDatabase>;
let shards: Kysely<ShardDatabase>[];
const workers: WorkerProcess[] = [];
let redisProxy: TcpProxy;
let productId: string;
let refundIds: string[] = [];
let paymentIds: string[] = [];
let killed: { consumer: string; pending: string[]; applied: string[] };

const users = Array.from({ length: USERS }, (_, u) => `rk-user-${u}`);
const buyers = Array.from({ length: BUYERS }, (_, b) => `rk-buyer-${b}`);

async function refundsPresent(ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const found = await Promise.all(
    shards.map((db) => db.selectFrom("refunds").select("id").where("id", "in", ids).execute()),
  );
  return new Set(found.flat().map((row) => row.id));
}

const refundRows = async () =>
  (await Promise.all(shards.map((db) => db.selectFrom("refunds").selectAll().execute()))).flat();

beforeAll(async () => {
  env = await createTestEnvironment("refunds-killed", {
    env: {
      ADMIN_API_KEY: ADMIN_KEY,
      VISIBILITY_TIMEOUT_MS: "12000",
      MAX_DELIVERIES: "3",
      WORKER_BATCH_SIZE: "25",
    },
  });
  app = await startIntake(env.config);
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
  global = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 1 });
  shards = env.config.shardUrls.map((url) => createKysely<ShardDatabase>(url, { max: 1 }));

  // The books before: wallets funded, payments and paid orders, applied by a worker that then stops.
  const setup = await startWorkerProcess(env.config);
  productId = await createProduct(app, 100);
  await settledViews(
    app,
    "/v1/deposits/",
    (await Promise.all([...users, ...buyers].map((u) => deposit(app, u, 10_000)))).map((d) => d.id),
  );
  const payments = await Promise.all(users.map((u) => pay(app, u, 6_000)));
  const orders = await Promise.all(
    buyers.map(async (userId) => {
      const { id } = (await placeOrder(app, { userId, items: [{ productId, quantity: 2 }] })).json();
      return { userId, id };
    }),
  );
  await settledViews(
    app,
    "/v1/orders/",
    orders.map((o) => o.id),
  );
  const orderPayments = await Promise.all(orders.map((o) => payOrder(app, o.userId, o.id, 2_000)));
  const paid = await settledViews(app, "/v1/payments/", [...payments.map((p) => p.id), ...orderPayments]);
  expect(paid.every((p) => p.status === "succeeded")).toBe(true);
  paymentIds = payments.map((p) => p.id);
  await setup.stop();

  // Refunds queued with no worker running, so the victim finds them all.
  const partial = paymentIds.flatMap((paymentId) =>
    Array.from({ length: REFUNDS_PER_USER }, (_, i) =>
      refund(app, { paymentId, amount: 1_500, reason: `r${i}` }),
    ),
  );
  const full = orderPayments.map((paymentId) => refund(app, { paymentId, restock: true }));
  refundIds = await Promise.all([...partial, ...full]);

  // The victim reaches Redis through a proxy. The batch that holds the hot user's refunds waits on its
  // shard. Each other shard's batch is acknowledged on its own once it commits, by a finish-operations call:
  // held from before the victim starts, so every batch it commits is unacknowledged, whenever it commits (its
  // reads and claims go through until its connection sends that call, and all it sends after it is held too).
  const hotShard = ShardMap.contiguous(shards.length).shardForBucket(bucketForUser(HOT_USER));
  const lock = await lockWallet(env.config.shardUrls[hotShard]!, HOT_USER);
  const redisUrl = new URL(env.config.redisUrl);
  redisProxy = await startTcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
  redisProxy.holdRequestsFrom(scriptSha(finishOperations));
  redisUrl.port = String(redisProxy.port);
  try {
    const victim = await startWorkerProcess({ ...env.config, redisUrl: redisUrl.toString() });
    workers.push(victim);
    await waitFor(async () => {
      const state = await appliedButUnacknowledged(redis, keys, consumerOf(victim), refundsPresent);
      killed = { consumer: consumerOf(victim), ...state };
      return state.applied.length > 0;
    }, "a worker with refunds committed on some shards but not acknowledged");
    await victim.kill();
    await redisProxy.close(); // what it held dies with the worker
    workers.splice(workers.indexOf(victim), 1);
    expect((await refundRows()).length).toBeLessThan(refundIds.length); // killed mid-run
    workers.push(...(await Promise.all([startWorkerProcess(env.config), startWorkerProcess(env.config)])));
  } finally {
    await lock.release();
  }
  await waitFor(
    async () => (await refundRows()).length === refundIds.length && (await pendingCount(redis, keys)) === 0,
    "every refund applied and acknowledged",
    60_000,
  );
}, 180_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await redisProxy?.close();
  await app?.close();
  redis?.disconnect();
  await Promise.all([global, ...(shards ?? [])].map((db) => db?.destroy()));
  await env?.cleanup();
});

describe("a worker SIGKILLed with refunds in flight", () => {
  it("had committed refunds it never acknowledged (the case being tested)", () => {
    expect(killed.applied.length).toBeGreaterThan(0);
  });

  it("applies each refund exactly once, and each succeeds", async () => {
    const rows = await refundRows();
    expect(rows.map((r) => r.id).sort()).toEqual([...refundIds].sort());
    expect(rows.filter((r) => r.status !== "succeeded")).toEqual([]);
    const views = await settledViews(app, "/v1/refunds/", refundIds);
    expect(views.every((v) => v.status === "succeeded")).toBe(true);
  });

  it("credits every wallet and payment total once per refund", async () => {
    const payments = (
      await Promise.all(
        shards.map((db) =>
          db.selectFrom("payments").select(["id", "refunded"]).where("id", "in", paymentIds).execute(),
        ),
      )
    ).flat();
    expect(payments.map((p) => Number(p.refunded))).toEqual(paymentIds.map(() => REFUNDS_PER_USER * 1_500));
    const wallets = (
      await Promise.all(shards.map((db) => db.selectFrom("wallets").selectAll().execute()))
    ).flat();
    for (const wallet of wallets) {
      const expected = wallet.user_id.startsWith("rk-buyer-")
        ? 10_000
        : 10_000 - 6_000 + REFUNDS_PER_USER * 1_500;
      expect([wallet.user_id, Number(wallet.balance)]).toEqual([wallet.user_id, expected]);
    }
    expect(wallets).toHaveLength(USERS + BUYERS);
  });

  it("returns each restocked order's units once, in Postgres and Redis, and reconcile finds nothing", async () => {
    const [state] = await stockState(global, shards, redis, keys, [productId]);
    expect(state).toMatchObject({
      received: 100,
      stock: 100,
      ledgerUnits: 0,
      liveOrderUnits: 0,
      available: 100,
    });
    expect((await runReconcile(app, global, shards, keys)).findings).toEqual([]);
  });

  it("leaves nothing with the dead consumer and nothing dead-lettered", async () => {
    expect(await pendingEntries(redis, keys, killed.consumer)).toEqual([]);
    expect(await deadLetters(redis, keys)).toEqual([]);
  });
});
