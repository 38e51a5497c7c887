// A shard that keeps a batch waiting (here: a wallet row locked by someone else, as a stuck session or an
// operator's open transaction would) must not stop the other shards: the wait ends, the shard's entries are
// held and retried like those of a shard that is down, and the other shards go on.
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { bucketForUser, ShardMap } from "@floodgate/shard-router";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptOperations, type OperationRequest } from "./support/accept-operations.ts";
import { counterValue, type InProcessWorker, startInProcessWorker } from "./support/in-process-worker.ts";
import {
  type AcceptedOperation,
  expectEachAppliedOnce,
  expectWalletsBalance,
} from "./support/ledger-assertions.ts";
import { LedgerReader } from "./support/ledger-reader.ts";
import { deadLetters, pendingCount } from "./support/queue-inspection.ts";
import { waitFor } from "./support/wait-for.ts";
import { lockWallet, type WalletLock } from "./support/wallet-lock.ts";

const HOT_USER = "busy-hot";
let env: TestEnvironment;
let redis: ScriptedRedis;
let keys: QueueKeys;
let ledger: LedgerReader;
let worker: InProcessWorker;
let lock: WalletLock;
let hotShard: number;
const accepted: AcceptedOperation[] = [];

beforeAll(async () => {
  env = await createTestEnvironment("busy-shard", {
    env: { VISIBILITY_TIMEOUT_MS: "2000", MAX_DELIVERIES: "2" },
  });
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
  ledger = new LedgerReader(env.config.shardUrls);
  const map = ShardMap.contiguous(env.config.shardUrls.length);
  hotShard = map.shardForBucket(bucketForUser(HOT_USER));
  lock = await lockWallet(env.config.shardUrls[hotShard]!, HOT_USER);
});

afterAll(async () => {
  await lock?.release();
  await worker?.stop();
  await ledger?.close();
  await redis?.quit();
  await env?.cleanup();
});

const requestsFor = (prefix: string): OperationRequest[] =>
  Array.from({ length: 40 }, (_, i) => [
    { kind: "deposit" as const, userId: `${prefix}-${i}`, amount: 500 },
    { kind: "payment" as const, userId: `${prefix}-${i}`, amount: 200 },
  ]).flat();

describe("a shard that keeps its batch waiting", () => {
  it("does not stop the other shards, and its operations are applied once it answers", async () => {
    accepted.push(
      ...(await acceptOperations(redis, keys, [{ kind: "deposit", userId: HOT_USER, amount: 900 }])),
    );
    accepted.push(...(await acceptOperations(redis, keys, requestsFor("early"))));
    worker = await startInProcessWorker(env.config, "busy-worker");
    const hotId = accepted[0]!.id;
    // The worker met the locked wallet, gave up waiting (lock_timeout) and now holds that shard's entries.
    await waitFor(
      async () => (await counterValue(worker.metrics.shardRetries, { shard: String(hotShard) })) > 0,
      "the worker to hold the locked wallet's shard",
    );
    // Accepted after that: only applied if the worker goes on while it holds the locked shard. (Accepting them
    // earlier could let them join the very batch that met the lock, within WORKER_LINGER_MS.)
    accepted.push(...(await acceptOperations(redis, keys, requestsFor("late"))));
    const shardOf = (userId: string) =>
      ShardMap.contiguous(env.config.shardUrls.length).shardForBucket(bucketForUser(userId));
    const otherShards = accepted.filter((op) => shardOf(op.userId) !== hotShard);

    await waitFor(
      async () => (await ledger.presentIds(otherShards.map((op) => op.id))).size === otherShards.length,
      "every operation of the other shards to be applied",
    );
    expect((await ledger.presentIds([hotId])).size).toBe(0);
    expect(await deadLetters(redis, keys)).toEqual([]);

    await lock.release();
    await waitFor(
      async () => (await ledger.count()) === accepted.length && (await pendingCount(redis, keys)) === 0,
      "the locked wallet's operation to be applied",
    );
    const snapshot = await ledger.read();
    expectEachAppliedOnce(snapshot, accepted, env.config.shardUrls.length);
    expectWalletsBalance(snapshot);
    expect(await deadLetters(redis, keys)).toEqual([]);
  });
});
