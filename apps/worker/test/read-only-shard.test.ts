// One shard read-only (a failover to a standby looks like this: every write fails 25006) for longer than
// MAX_DELIVERIES x the visibility timeout, with its entries claimed by another worker meanwhile: the failure is
// the shard's, not the messages', so nothing is dead-lettered, and once it is writable again everything is
// applied exactly once.
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptOperations } from "./support/accept-operations.ts";
import { counterValue, type InProcessWorker, startInProcessWorker } from "./support/in-process-worker.ts";
import {
  type AcceptedOperation,
  expectEachAppliedOnce,
  expectWalletsBalance,
} from "./support/ledger-assertions.ts";
import { LedgerReader } from "./support/ledger-reader.ts";
import { deadLetters, pendingCount, pendingEntries, pendingStatuses } from "./support/queue-inspection.ts";
import { roundFor, shardOfUser, usersOnEveryShard } from "./support/shard-users.ts";
import { waitFor } from "./support/wait-for.ts";

const SHARDS = 4;
const READ_ONLY = 2;
const MAX_DELIVERIES = 2;
const VISIBILITY_TIMEOUT_MS = 1000;
const shardOf = shardOfUser(SHARDS);

let env: TestEnvironment;
let ledger: LedgerReader;
let redis: ScriptedRedis;
let keys: QueueKeys;
const accepted: AcceptedOperation[] = [];
const workers: InProcessWorker[] = [];

/**
 * Sets the shard database's default_transaction_read_only (for new sessions) and ends the workers' sessions
 * on it, so their next connection gets the setting. Only this test's own database is changed.
 */
async function setReadOnly(on: boolean) {
  const shardUrl = new URL(env.config.shardUrls[READ_ONLY]!);
  const database = decodeURIComponent(shardUrl.pathname.slice(1));
  const adminUrl = new URL(shardUrl);
  adminUrl.pathname = "/postgres";
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  try {
    const name = admin.escapeIdentifier(database);
    await admin.query(
      on
        ? `alter database ${name} set default_transaction_read_only = on`
        : `alter database ${name} reset default_transaction_read_only`,
    );
    await admin.query(
      `select pg_terminate_backend(pid) from pg_stat_activity
       where datname = $1 and application_name like 'floodgate-worker%'`,
      [database],
    );
  } finally {
    await admin.end();
  }
}

const expectedPerShard = () => {
  const counts = new Array(SHARDS).fill(0);
  for (const op of accepted) counts[shardOf(op.userId)] += 1;
  return counts as number[];
};
const othersApplied = async () => {
  const [actual, expected] = [await ledger.countPerShard(), expectedPerShard()];
  return actual.every((n, shard) => shard === READ_ONLY || n === expected[shard]);
};
const allApplied = async () =>
  (await ledger.count()) === accepted.length && (await pendingCount(redis, keys)) === 0;
const logs = () => workers.map((w) => w.logs()).join("\n");
const retries = async () =>
  (
    await Promise.all(workers.map((w) => counterValue(w.metrics.shardRetries, { shard: String(READ_ONLY) })))
  ).reduce((a, b) => a + b);

beforeAll(async () => {
  env = await createTestEnvironment("read-only-shard", {
    shards: SHARDS,
    env: { VISIBILITY_TIMEOUT_MS: String(VISIBILITY_TIMEOUT_MS), MAX_DELIVERIES: String(MAX_DELIVERIES) },
  });
  ledger = new LedgerReader(env.config.shardUrls);
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await ledger?.close();
  await redis?.quit();
  await env?.cleanup();
});

describe("a shard made read-only for longer than MAX_DELIVERIES x the visibility timeout", () => {
  it("dead-letters nothing, and applies everything once it is writable again", async () => {
    workers.push(
      await startInProcessWorker(env.config, "read-only-a"),
      await startInProcessWorker(env.config, "read-only-b"),
    );
    accepted.push(...(await acceptOperations(redis, keys, roundFor(usersOnEveryShard("before", 6, SHARDS)))));
    await waitFor(allApplied, "the operations accepted before", 45_000, logs);
    const readOnlyBefore = (await ledger.countPerShard())[READ_ONLY];

    await setReadOnly(true);
    accepted.push(...(await acceptOperations(redis, keys, roundFor(usersOnEveryShard("during", 6, SHARDS)))));
    await waitFor(othersApplied, "the writable shards to apply", 45_000, logs);
    await waitFor(
      async () => (await retries()) >= 2,
      "the workers to retry the read-only shard",
      45_000,
      logs,
    );

    // The worker holding the most stops; the other claims its entries after the visibility timeout, so they
    // reach MAX_DELIVERIES. Still the shard's failure, not theirs: they wait.
    const holders = await Promise.all(
      workers.map(async (w) => (await pendingEntries(redis, keys, w.worker.consumer)).length),
    );
    const [leaving, staying] =
      holders[0]! >= holders[1]! ? [workers[0]!, workers[1]!] : [workers[1]!, workers[0]!];
    await leaving.stop();
    await waitFor(
      async () => {
        const pending = await pendingEntries(redis, keys);
        return (
          pending.length > 0 &&
          pending.every((e) => e.consumer === staying.worker.consumer) &&
          pending.some((e) => e.deliveries >= MAX_DELIVERIES)
        );
      },
      "the staying worker to claim the stopped worker's entries",
      45_000,
      logs,
    );
    const retriesAfterClaim = await retries();
    await waitFor(async () => (await retries()) >= retriesAfterClaim + 2, "more retries after the claim");
    // Read-only longer than MAX_DELIVERIES x the visibility timeout in all.
    await new Promise((resolve) => setTimeout(resolve, MAX_DELIVERIES * VISIBILITY_TIMEOUT_MS));
    expect(await deadLetters(redis, keys)).toEqual([]);
    expect((await ledger.countPerShard())[READ_ONLY]).toBe(readOnlyBefore);

    await setReadOnly(false);
    await waitFor(allApplied, "the shard's operations once it is writable", 45_000, logs);
    const snapshot = await ledger.read();
    expectEachAppliedOnce(snapshot, accepted, SHARDS);
    expectWalletsBalance(snapshot);
    expect(await deadLetters(redis, keys)).toEqual([]);
    expect(await counterValue(staying.metrics.deadLettered)).toBe(0);
    expect(
      await pendingStatuses(
        redis,
        keys,
        accepted.map((a) => a.id),
      ),
    ).toEqual([]);
  });
});
