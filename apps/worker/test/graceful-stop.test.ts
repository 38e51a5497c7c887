// SIGTERM: the worker finishes the batches in flight and what it read (applied and acknowledged), reads nothing
// more and exits 0.
// Nothing it applied is left pending for it; what it never read is there for the next worker.
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { bucketForUser, ShardMap } from "@floodgate/shard-router";
import {
  createTestEnvironment,
  startWorkerProcess,
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
import { LedgerReader } from "./support/ledger-reader.ts";
import { appliedButUnacknowledged, pendingCount } from "./support/queue-inspection.ts";
import { waitFor } from "./support/wait-for.ts";
import { lockWallet } from "./support/wallet-lock.ts";
import { consumerOf } from "./support/worker-consumer.ts";

let env: TestEnvironment;
let redis: ScriptedRedis;
let keys: QueueKeys;
let ledger: LedgerReader;
const accepted: AcceptedOperation[] = [];
const running = new Set<WorkerProcess>();

beforeAll(async () => {
  // Small reads (16 per partition), so a worker stopped early leaves most of the stream unread. The worker's
  // lock wait is bounded by half the visibility timeout: 12 s keeps a waiting batch waiting 6 s, time for the
  // test to see it and send SIGTERM on a loaded machine (worker-killed.test.ts missed a 2 s window there).
  env = await createTestEnvironment("graceful-stop", {
    env: { VISIBILITY_TIMEOUT_MS: "12000", MAX_DELIVERIES: "3", WORKER_BATCH_SIZE: "16" },
  });
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
  ledger = new LedgerReader(env.config.shardUrls);
});

afterAll(async () => {
  await Promise.all([...running].map((w) => w.stop()));
  await ledger?.close();
  await redis?.quit();
  await env?.cleanup();
});

const start = async () => {
  const worker = await startWorkerProcess(env.config);
  running.add(worker);
  return worker;
};
const stop = async (worker: WorkerProcess) => {
  worker.child.kill("SIGTERM");
  const exit = await worker.exited;
  running.delete(worker);
  return exit;
};
const requestsFor = (prefix: string, users: number, perUser: number): OperationRequest[] => {
  const requests: OperationRequest[] = [];
  for (let u = 0; u < users; u++) requests.push({ kind: "deposit", userId: `${prefix}-${u}`, amount: 5000 });
  for (let i = 0; i < perUser; i++) {
    for (let u = 0; u < users; u++)
      requests.push({ kind: "payment", userId: `${prefix}-${u}`, amount: 100 + i });
  }
  return requests;
};
const present = (ids: string[]) => ledger.presentIds(ids);
const drain = async () => {
  const worker = await start();
  await waitFor(
    async () => (await ledger.count()) === accepted.length && (await pendingCount(redis, keys)) === 0,
    "the next worker to drain the stream",
  );
  expect(await stop(worker)).toBe(0);
};

describe("a worker stopped with SIGTERM", () => {
  it("finishes and acknowledges the batch in flight, then exits 0 without reading more", async () => {
    accepted.push(...(await acceptOperations(redis, keys, requestsFor("inflight", 100, 19))));
    const hotUser = "inflight-0";
    const hotShard = ShardMap.contiguous(env.config.shardUrls.length).shardForBucket(bucketForUser(hotUser));
    const hotIds = new Set(accepted.filter((op) => op.userId === hotUser).map((op) => op.id));
    const lock = await lockWallet(env.config.shardUrls[hotShard]!, hotUser);
    let worker: WorkerProcess;
    let inFlight: { pending: string[]; applied: string[] };
    try {
      worker = await start();
      // Each shard's batch is acknowledged on its own, so the other shards apply while the hot one waits.
      await waitFor(async () => {
        inFlight = await appliedButUnacknowledged(redis, keys, consumerOf(worker), present);
        return (await ledger.count()) > 0 && inFlight.pending.some((id) => hotIds.has(id));
      }, "some shards applied and the hot one's batch waiting");
      worker.child.kill("SIGTERM"); // while the batch waits on the hot shard
    } finally {
      await lock.release();
    }
    const exit = await worker!.exited;
    running.delete(worker!);

    expect(exit).toBe(0);
    const after = await appliedButUnacknowledged(redis, keys, consumerOf(worker!), present);
    expect(after).toEqual({ pending: [], applied: [] });
    expect([...(await present(inFlight!.pending))].sort()).toEqual([...inFlight!.pending].sort());
    expect(await ledger.count()).toBeLessThan(accepted.length); // it stopped reading

    await drain();
    const snapshot = await ledger.read();
    expectEachAppliedOnce(snapshot, accepted, env.config.shardUrls.length);
    expectWalletsBalance(snapshot);
  });

  it("leaves nothing it applied pending when stopped in the middle of a load", async () => {
    const worker = await start();
    const before = await ledger.count();
    const load = acceptOperations(redis, keys, requestsFor("midload", 150, 19), 20);
    await waitFor(async () => (await ledger.count()) > before + 200, "the worker to be applying the load");
    expect(await stop(worker)).toBe(0);
    accepted.push(...(await load));

    const left = await appliedButUnacknowledged(redis, keys, consumerOf(worker), present);
    expect(left.applied).toEqual([]);
    expect(await ledger.count()).toBeLessThan(accepted.length);

    await drain();
    const snapshot = await ledger.read();
    expectEachAppliedOnce(snapshot, accepted, env.config.shardUrls.length);
    expectWalletsBalance(snapshot);
  });
});
