// One shard frozen (a TCP proxy in front of it holds every reply: statements reach it, no answer comes back,
// as with a SIGSTOPped Postgres) for longer than the visibility timeout: the other shards' operations are
// applied meanwhile, backpressure counts nothing the healthy shards cannot drain, and once the shard answers
// again everything is applied exactly once.
import type { Config } from "@floodgate/config";
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import {
  createTestEnvironment,
  startTcpProxy,
  type TcpProxy,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BacklogGauge } from "../../../packages/admission/src/backlog-gauge.ts";
import { acceptOperations } from "./support/accept-operations.ts";
import { counterValue, type InProcessWorker, startInProcessWorker } from "./support/in-process-worker.ts";
import {
  type AcceptedOperation,
  expectEachAppliedOnce,
  expectWalletsBalance,
} from "./support/ledger-assertions.ts";
import { LedgerReader } from "./support/ledger-reader.ts";
import { deadLetters, pendingCount, pendingStatuses } from "./support/queue-inspection.ts";
import { roundFor, shardOfUser, usersOnEveryShard } from "./support/shard-users.ts";
import { waitFor } from "./support/wait-for.ts";

const SHARDS = 4;
const FROZEN = 1;
const VISIBILITY_TIMEOUT_MS = 2000;
const shardOf = shardOfUser(SHARDS);

let env: TestEnvironment;
let proxy: TcpProxy;
let workerConfig: Config;
let ledger: LedgerReader; // reads every shard directly, the frozen one included
let redis: ScriptedRedis;
let keys: QueueKeys;
const accepted: AcceptedOperation[] = [];
const workers: InProcessWorker[] = [];

const expectedPerShard = () => {
  const counts = new Array(SHARDS).fill(0);
  for (const op of accepted) counts[shardOf(op.userId)] += 1;
  return counts as number[];
};
const othersApplied = async () => {
  const [actual, expected] = [await ledger.countPerShard(), expectedPerShard()];
  return actual.every((n, shard) => shard === FROZEN || n === expected[shard]);
};
const allApplied = async () =>
  (await ledger.count()) === accepted.length && (await pendingCount(redis, keys)) === 0;
const logs = () => workers.map((w) => w.logs()).join("\n");
const accept = async (prefix: string) =>
  accepted.push(...(await acceptOperations(redis, keys, roundFor(usersOnEveryShard(prefix, 6, SHARDS)))));

beforeAll(async () => {
  env = await createTestEnvironment("frozen-shard", {
    shards: SHARDS,
    env: {
      VISIBILITY_TIMEOUT_MS: String(VISIBILITY_TIMEOUT_MS),
      MAX_DELIVERIES: "2",
      // Small bounds, so the frozen shard's batch times out and is retried while the test watches.
      PG_STATEMENT_TIMEOUT_MS: "1000",
      PG_QUERY_TIMEOUT_MS: "1500",
      PG_CONNECT_TIMEOUT_MS: "1000",
    },
  });
  const target = new URL(env.config.shardUrls[FROZEN]!);
  proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
  target.port = String(proxy.port);
  workerConfig = {
    ...env.config,
    shardUrls: env.config.shardUrls.map((url, i) => (i === FROZEN ? target.toString() : url)),
  };
  ledger = new LedgerReader(env.config.shardUrls);
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
});

afterAll(async () => {
  proxy?.releaseReplies();
  await Promise.all(workers.map((w) => w.stop()));
  await proxy?.close();
  await ledger?.close();
  await redis?.quit();
  await env?.cleanup();
});

describe("a shard frozen longer than the visibility timeout", () => {
  it("delays only its own operations, and applies them exactly once when it answers again", async () => {
    workers.push(
      await startInProcessWorker(workerConfig, "frozen-a"),
      await startInProcessWorker(workerConfig, "frozen-b"),
    );
    await accept("before");
    await waitFor(allApplied, "the operations accepted before the freeze", 45_000, logs);
    const frozenBefore = (await ledger.countPerShard())[FROZEN];

    proxy.holdReplies();
    await accept("during");
    await waitFor(othersApplied, "the other shards to apply while one is frozen", 45_000, logs);
    // Past the visibility timeout, still frozen: the frozen shard's batches time out and are retried, its
    // entries stay with their worker, and the other shards go on with what is accepted now.
    const retries = async () =>
      (
        await Promise.all(workers.map((w) => counterValue(w.metrics.shardRetries, { shard: String(FROZEN) })))
      ).reduce((a, b) => a + b);
    await waitFor(async () => (await retries()) >= 2, "the frozen shard's batches to time out", 45_000, logs);
    await new Promise((resolve) => setTimeout(resolve, 2 * VISIBILITY_TIMEOUT_MS));
    await accept("later");
    await waitFor(othersApplied, "the other shards to apply after the visibility timeout", 45_000, logs);
    expect((await ledger.countPerShard())[FROZEN]).toBe(frozenBefore);
    expect(await pendingCount(redis, keys)).toBeGreaterThan(0);

    // What waits for the frozen shard is not the workers' backlog: backpressure sees none.
    const gauge = new BacklogGauge();
    await waitFor(
      async () => (await gauge.read(redis, keys)).backlog === 0,
      "the backlog gauge to leave the frozen shard's entries out",
    );
    expect(await deadLetters(redis, keys)).toEqual([]);

    proxy.releaseReplies();
    await waitFor(allApplied, "the frozen shard's operations once it answers", 45_000, logs);
    const snapshot = await ledger.read();
    expectEachAppliedOnce(snapshot, accepted, SHARDS);
    expectWalletsBalance(snapshot);
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
