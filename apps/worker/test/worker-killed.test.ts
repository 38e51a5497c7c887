// Exactly once when a worker is SIGKILLed mid-batch: some of its shard transactions committed but their
// acknowledgements never reached Redis (a TCP proxy in front of Redis holds what the worker sends to finish a
// batch), another waits on a row lock. The entries are reclaimed after the visibility timeout and the shards
// recognise the applied ones by id.
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
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptOperations, type OperationRequest } from "./support/accept-operations.ts";
import {
  type AcceptedOperation,
  expectEachAppliedOnce,
  expectWalletsBalance,
} from "./support/ledger-assertions.ts";
import { type Ledger, LedgerReader } from "./support/ledger-reader.ts";
import {
  appliedButUnacknowledged,
  deadLetters,
  pendingCount,
  pendingEntries,
  pendingStatuses,
} from "./support/queue-inspection.ts";
import { waitFor } from "./support/wait-for.ts";
import { lockWallet } from "./support/wallet-lock.ts";
import { consumerOf } from "./support/worker-consumer.ts";

const USERS = 150;
const PAYMENTS_PER_USER = 19; // 150 x (1 deposit + 19 payments) = 3,000 operations
const HOT_USER = "killed-0";

let env: TestEnvironment;
let redis: ScriptedRedis;
let keys: QueueKeys;
let ledger: LedgerReader;
const workers: WorkerProcess[] = [];
let accepted: AcceptedOperation[] = [];
let killed: { consumer: string; pending: string[]; applied: string[] };
let snapshot: Ledger;
let redisProxy: TcpProxy;

beforeAll(async () => {
  // The survivors reclaim the killed worker's entries once they have been idle 12 s; the worker's lock wait is
  // half of that (the hot shard's batch gives up and is retried, still unapplied while the test holds the lock).
  env = await createTestEnvironment("worker-killed", {
    env: { VISIBILITY_TIMEOUT_MS: "12000", MAX_DELIVERIES: "3" },
  });
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
  ledger = new LedgerReader(env.config.shardUrls);

  const requests: OperationRequest[] = [];
  for (let u = 0; u < USERS; u++) requests.push({ kind: "deposit", userId: `killed-${u}`, amount: 10_000 });
  for (let p = 0; p < PAYMENTS_PER_USER; p++) {
    for (let u = 0; u < USERS; u++) {
      requests.push({ kind: "payment", userId: `killed-${u}`, amount: 100 + ((u * 7 + p * 13) % 12) * 100 });
    }
  }
  accepted = await acceptOperations(redis, keys, requests);

  // The victim reaches Redis through a proxy. The batch that holds the hot user's first operation waits on its
  // shard. Each other shard's batch is acknowledged on its own once it commits, by a finish-operations call:
  // held from before the victim starts, so every batch it commits is unacknowledged, whenever it commits (its
  // reads and claims go through until its connection sends that call, and all it sends after it is held too).
  const hotShard = ShardMap.contiguous(env.config.shardUrls.length).shardForBucket(bucketForUser(HOT_USER));
  const lock = await lockWallet(env.config.shardUrls[hotShard]!, HOT_USER);
  const redisUrl = new URL(env.config.redisUrl);
  redisProxy = await startTcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
  redisProxy.holdRequestsFrom(scriptSha(finishOperations));
  redisUrl.port = String(redisProxy.port);
  try {
    const victim = await startWorkerProcess({ ...env.config, redisUrl: redisUrl.toString() });
    workers.push(victim);
    const present = (ids: string[]) => ledger.presentIds(ids);
    await waitFor(async () => {
      const state = await appliedButUnacknowledged(redis, keys, consumerOf(victim), present);
      killed = { consumer: consumerOf(victim), ...state };
      return state.applied.length > 0;
    }, "a worker with batches committed on some shards but not acknowledged");
    await victim.kill();
    await redisProxy.close(); // what it held dies with the worker
    workers.splice(workers.indexOf(victim), 1);
    expect(await ledger.count()).toBeLessThan(accepted.length); // killed mid-run, not after it
    workers.push(...(await Promise.all([startWorkerProcess(env.config), startWorkerProcess(env.config)])));
  } finally {
    await lock.release();
  }

  await waitFor(
    async () => (await ledger.count()) === accepted.length && (await pendingCount(redis, keys)) === 0,
    "every accepted operation applied and acknowledged",
    50_000,
    async () =>
      `applied ${await ledger.count()} of ${accepted.length}; pending ${await pendingCount(redis, keys)}`,
  );
  snapshot = await ledger.read();
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await redisProxy?.close();
  await ledger?.close();
  await redis?.quit();
  await env?.cleanup();
});

describe("a worker SIGKILLed mid-batch", () => {
  it("had applied part of its batch without acknowledging it (the case being tested)", () => {
    expect(killed.applied.length).toBeGreaterThan(0);
    expect(killed.pending.length).toBeGreaterThan(killed.applied.length); // the hot shard's part was not
  });

  it("applies every accepted operation exactly once across the shards", () => {
    expectEachAppliedOnce(snapshot, accepted, env.config.shardUrls.length);
    const ids = new Set(snapshot.operations.map((op) => op.id));
    expect(killed.pending.filter((id) => !ids.has(id))).toEqual([]);
  });

  it("keeps every balance equal to deposits - succeeded payments, none below zero", () => {
    expectWalletsBalance(snapshot);
    expect(snapshot.operations.some((op) => op.status === "failed")).toBe(true);
  });

  it("leaves nothing with the dead consumer, nothing dead-lettered, and a final status for every operation", async () => {
    expect(await pendingEntries(redis, keys, killed.consumer)).toEqual([]);
    expect(await deadLetters(redis, keys)).toEqual([]);
    expect(
      await pendingStatuses(
        redis,
        keys,
        accepted.map((a) => a.id),
      ),
    ).toEqual([]);
  });
});
