// Poison messages: after MAX_DELIVERIES they move to the dead-letter stream, acknowledged and marked failed,
// while the good messages around them are applied.
import { createKysely, type GlobalDatabase } from "@floodgate/db";
import {
  encodeOperationMessage,
  newOperationId,
  newProductId,
  type OperationMessage,
} from "@floodgate/domain";
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { bucketForUser } from "@floodgate/shard-router";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptOperations } from "./support/accept-operations.ts";
import { counterValue, type InProcessWorker, startInProcessWorker } from "./support/in-process-worker.ts";
import {
  type AcceptedOperation,
  expectEachAppliedOnce,
  expectWalletsBalance,
} from "./support/ledger-assertions.ts";
import { LedgerReader } from "./support/ledger-reader.ts";
import { deadLetters, pendingCount, pendingStatuses } from "./support/queue-inspection.ts";
import { waitFor } from "./support/wait-for.ts";

const MAX_DELIVERIES = 3;
let env: TestEnvironment;
let redis: ScriptedRedis;
let keys: QueueKeys;
let worker: InProcessWorker;
let ledger: LedgerReader;
const good: AcceptedOperation[] = [];
let undecodableId: string;
let unappliableId: string;

/** What the enqueue script writes, but with a payload of our choosing. */
async function appendRaw(id: string, payload: string, userId: string) {
  const partition = keys.partitionForOperation(id)!;
  const message = encodeOperationMessage({
    v: 1,
    kind: "payment",
    id,
    userId,
    amount: 1,
    currency: "KRW",
    createdAt: Date.now(),
  });
  // The pending status as the intake writes it (enqueue-operations-n.lua): its id beside the message.
  await redis.hset(keys.status(partition, id), "status", "pending", "id", id, "message", message);
  await redis.xadd(keys.stream(partition), "*", "id", id, "m", payload);
}

beforeAll(async () => {
  env = await createTestEnvironment("dead-letter", {
    env: { MAX_DELIVERIES: String(MAX_DELIVERIES), VISIBILITY_TIMEOUT_MS: "500" },
  });
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
  ledger = new LedgerReader(env.config.shardUrls);
  const accept = async (requests: Parameters<typeof acceptOperations>[2]) =>
    good.push(...(await acceptOperations(redis, keys, requests)));

  // Both poison messages sit between good ones of the same users, in the same partitions.
  await accept([
    { kind: "deposit", userId: "poison-a", amount: 1000 },
    { kind: "deposit", userId: "poison-b", amount: 1000 },
  ]);
  undecodableId = newOperationId("payment", bucketForUser("poison-a"));
  await appendRaw(undecodableId, '{"v":1,"kind":"payment",', "poison-a");
  // Decodes, but orders a unit of a product Postgres has none of (stock drift): the global stock update
  // violates CHECK (stock >= 0) on every delivery, a failure of the message's own.
  const productId = newProductId();
  const global = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 1 });
  await global
    .insertInto("products")
    .values({ id: productId, name: "drifted", price: 10, stock: 0, received: 0 })
    .execute();
  await global.destroy();
  unappliableId = newOperationId("order", bucketForUser("poison-b"));
  const unappliable: OperationMessage = {
    v: 1,
    kind: "order",
    id: unappliableId,
    userId: "poison-b",
    items: [{ productId, quantity: 1, unitPrice: 10 }],
    discount: 0,
    amount: 10,
    currency: env.config.currency,
    expiresAt: Date.now() + 600_000,
    createdAt: Date.now(),
  };
  await appendRaw(unappliableId, encodeOperationMessage(unappliable), "poison-b");
  await accept([
    { kind: "payment", userId: "poison-a", amount: 100 },
    { kind: "payment", userId: "poison-b", amount: 200 },
    ...Array.from({ length: 40 }, (_, i) => ({
      kind: "payment" as const,
      userId: `bystander-${i}`,
      amount: 5,
    })),
    ...Array.from({ length: 40 }, (_, i) => ({
      kind: "deposit" as const,
      userId: `bystander-${i}`,
      amount: 50,
    })),
  ]);

  worker = await startInProcessWorker(env.config, "dead-letter-worker");
  await waitFor(
    async () => (await deadLetters(redis, keys)).length >= 2,
    "two dead letters",
    45_000,
    () => worker.logs(),
  );
  await waitFor(async () => (await ledger.count()) === good.length, "the good messages to be applied");
});

afterAll(async () => {
  await worker?.stop();
  await ledger?.close();
  await redis?.quit();
  await env?.cleanup();
});

describe("poison messages", () => {
  it(`end in the dead-letter stream after ${MAX_DELIVERIES} deliveries, with their payload and reason`, async () => {
    const letters = await deadLetters(redis, keys);
    expect(letters).toHaveLength(2);
    const byId = Object.fromEntries(letters.map((l) => [l.id, l]));
    expect(byId[undecodableId]).toMatchObject({
      deliveries: String(MAX_DELIVERIES),
      partition: String(keys.partitionForOperation(undecodableId)),
      m: '{"v":1,"kind":"payment",',
      reason: expect.stringContaining("not JSON"),
    });
    expect(byId[unappliableId]).toMatchObject({
      deliveries: String(MAX_DELIVERIES),
      partition: String(keys.partitionForOperation(unappliableId)),
      reason: expect.stringContaining("products_stock_check"),
    });
    expect(JSON.parse(byId[unappliableId]!.m!).items).toHaveLength(1);
    expect(await counterValue(worker.metrics.deadLettered)).toBe(2);
  });

  it("are acknowledged: nothing is left pending", async () => {
    expect(await pendingCount(redis, keys)).toBe(0);
  });

  it("are marked failed with reason dead_lettered", async () => {
    for (const id of [undecodableId, unappliableId]) {
      const status = await redis.hgetall(keys.status(keys.partitionForOperation(id)!, id));
      expect(status).toMatchObject({ status: "failed", failureReason: "dead_lettered" });
      expect(Number(status.completedAt)).toBeGreaterThan(0);
    }
  });

  it("do not stop the good messages around them, which are applied once and change the balances", async () => {
    const snapshot = await ledger.read();
    expectEachAppliedOnce(snapshot, good, env.config.shardUrls.length);
    expectWalletsBalance(snapshot);
    const balance = Object.fromEntries(snapshot.wallets.map((w) => [w.userId, w.balance]));
    expect([balance["poison-a"], balance["poison-b"]]).toEqual([900, 800]);
    expect(
      await pendingStatuses(
        redis,
        keys,
        good.map((g) => g.id),
      ),
    ).toEqual([]);
  });
});
