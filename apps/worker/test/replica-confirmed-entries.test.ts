// REDIS_WAIT_REPLICAS on the worker's side (private master and replica, never the shared Redis). An intake
// answers 503 for a request its master stored but no replica confirmed; the shop retries it with the same
// Idempotency-Key. Should that master be cut from its replica and the replica promoted, the retry reaches a
// master that never saw the first request and stores it again under a new id. A worker that applied the first
// one from the old master would make that two payments for one key. So with REDIS_WAIT_REPLICAS a worker applies
// an entry only once a replica of the master it read it from confirmed it; an unconfirmed one stays pending and
// is claimed again once its visibility timeout is over.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Config } from "@floodgate/config";
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import {
  createTestEnvironment,
  type RedisServer,
  startRedisServer,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptOperations } from "./support/accept-operations.ts";
import { counterValue, type InProcessWorker, startInProcessWorker } from "./support/in-process-worker.ts";
import { expectEachAppliedOnce, expectWalletsBalance } from "./support/ledger-assertions.ts";
import { LedgerReader } from "./support/ledger-reader.ts";
import { pendingEntries } from "./support/queue-inspection.ts";
import { waitFor } from "./support/wait-for.ts";

const SHARDS = 2;
const CONSUMER = "confirmed-a";

let dir: string;
let master: RedisServer;
let replica: RedisServer;
let env: TestEnvironment;
let config: Config;
let redis: ScriptedRedis;
let keys: QueueKeys;
let ledger: LedgerReader;
let worker: InProcessWorker | undefined;

const portOf = (url: string) => Number(new URL(url).port);

/** The replica following the master, in sync, and counted by the master for WAIT. */
async function followMaster(): Promise<void> {
  const replicaClient = new Redis(replica.url, { maxRetriesPerRequest: 1 });
  const masterClient = new Redis(master.url, { maxRetriesPerRequest: 1 });
  try {
    await replicaClient.replicaof("127.0.0.1", portOf(master.url));
    await waitFor(
      async () => /master_link_status:up/.test(await replicaClient.info("replication")),
      "the replica in sync",
    );
    await waitFor(
      async () => /slave0:.*state=online/.test(await masterClient.info("replication")),
      "the master counting its replica",
    );
  } finally {
    replicaClient.disconnect();
    masterClient.disconnect();
  }
}

beforeAll(async () => {
  // A replica's full sync lands in its dir as dump.rdb: a temp dir of the test's.
  dir = await mkdtemp(path.join(tmpdir(), "replica-confirmed-"));
  [master, replica] = await Promise.all([startRedisServer({ dir }), startRedisServer({ dir })]);
  await followMaster();
  env = await createTestEnvironment("replica-confirmed", { shards: SHARDS });
  config = {
    ...env.config,
    redisUrl: master.url,
    redisWaitReplicas: 1,
    redisWaitTimeoutMs: 300,
    // An unconfirmed entry is claimed again after this: short, so the test need not wait 30 s.
    visibilityTimeoutMs: 1_000,
  };
  redis = createRedis(master.url);
  await waitForRedis(redis);
  keys = new QueueKeys(config.redisPrefix, config.streamPartitions);
  ledger = new LedgerReader(config.shardUrls);
  worker = await startInProcessWorker(config, CONSUMER);
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  redis?.disconnect();
  await ledger?.close();
  await env?.cleanup();
  await Promise.all([master?.stop(), replica?.stop()]);
  await rm(dir, { recursive: true, force: true });
});

describe("a worker with REDIS_WAIT_REPLICAS=1", () => {
  it("applies what a replica confirmed, and nothing its master alone holds until a replica has it", async () => {
    const confirmed = await acceptOperations(redis, keys, [
      { kind: "deposit", userId: "rc-user-a", amount: 1_000 },
      { kind: "deposit", userId: "rc-user-b", amount: 1_000 },
    ]);
    await waitFor(async () => (await ledger.count()) === confirmed.length, "the confirmed deposits applied");

    await replica.kill();
    const unconfirmed = await acceptOperations(redis, keys, [
      { kind: "payment", userId: "rc-user-a", amount: 7 },
      { kind: "payment", userId: "rc-user-b", amount: 9 },
    ]);
    const unconfirmedCount = () => counterValue(worker!.metrics.unconfirmedEntries);
    // Whichever comes first: the worker applied them (what it must not do), or it read them (they are pending
    // for it) and counted them unconfirmed.
    await waitFor(
      async () =>
        (await ledger.count()) > confirmed.length ||
        ((await unconfirmedCount()) >= unconfirmed.length &&
          (await pendingEntries(redis, keys, CONSUMER)).length >= unconfirmed.length),
      "the worker to read the unconfirmed payments",
      45_000,
      () => worker!.logs(),
    );
    expect((await ledger.read()).operations.map((row) => row.id).sort()).toEqual(
      confirmed.map((operation) => operation.id).sort(),
    );
    expect(await unconfirmedCount()).toBeGreaterThanOrEqual(unconfirmed.length);

    // A replica again: claimed once their visibility timeout is over, confirmed, applied once.
    await replica.start();
    await followMaster();
    const accepted = [...confirmed, ...unconfirmed];
    await waitFor(
      async () => (await ledger.count()) === accepted.length,
      "the payments applied once a replica has them",
      45_000,
      () => worker!.logs(),
    );
    await waitFor(async () => (await pendingEntries(redis, keys)).length === 0, "every entry acknowledged");
    const snapshot = await ledger.read();
    expectEachAppliedOnce(snapshot, accepted, SHARDS);
    expectWalletsBalance(snapshot);
  });
});
