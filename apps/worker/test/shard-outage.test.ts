// One shard stopped and restarted (a TCP proxy in front of it is taken down): the other shards go on, the
// stopped shard's operations wait (never dead-lettered, whatever their delivery count), and once it is back
// everything is applied exactly once.
import type { Config } from "@floodgate/config";
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
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
import { counterValue, type InProcessWorker, startInProcessWorker } from "./support/in-process-worker.ts";
import { deposit, type IntakeApp, pay, startIntake } from "./support/intake-client.ts";
import {
  type AcceptedOperation,
  expectEachAppliedOnce,
  expectWalletsBalance,
} from "./support/ledger-assertions.ts";
import { LedgerReader } from "./support/ledger-reader.ts";
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

const SHARDS = 4;
const DOWN = 2;
const MAX_DELIVERIES = 2;
const map = ShardMap.contiguous(SHARDS);
const shardOf = (userId: string) => map.shardForBucket(bucketForUser(userId));

let env: TestEnvironment;
let proxy: TcpProxy;
let workerConfig: Config;
let app: IntakeApp;
let ledger: LedgerReader; // reads every shard directly, the stopped one included
let redis: ScriptedRedis;
let keys: QueueKeys;
const accepted: AcceptedOperation[] = [];
const inProcess: InProcessWorker[] = [];
let processWorker: WorkerProcess | undefined;

/** `perShard` users on every shard, named `<prefix>-<n>`. */
function usersOnEveryShard(prefix: string, perShard: number): string[] {
  const users: string[] = [];
  const count = new Array(SHARDS).fill(0);
  for (let i = 0; users.length < perShard * SHARDS; i++) {
    const user = `${prefix}-${i}`;
    if (count[shardOf(user)] < perShard) {
      count[shardOf(user)] += 1;
      users.push(user);
    }
  }
  return users;
}

async function acceptFor(users: string[]) {
  for (const user of users) {
    accepted.push(await deposit(app, user, 1000));
    accepted.push(await pay(app, user, 400));
    accepted.push(await pay(app, user, 700)); // fails: 600 left
  }
}

const expectedPerShard = () => {
  const counts = new Array(SHARDS).fill(0);
  for (const op of accepted) counts[shardOf(op.userId)] += 1;
  return counts as number[];
};
const othersApplied = async () => {
  const [actual, expected] = [await ledger.countPerShard(), expectedPerShard()];
  return actual.every((n, shard) => shard === DOWN || n === expected[shard]);
};
const allApplied = async () =>
  (await ledger.count()) === accepted.length && (await pendingCount(redis, keys)) === 0;

beforeAll(async () => {
  env = await createTestEnvironment("shard-outage", {
    shards: SHARDS,
    env: { VISIBILITY_TIMEOUT_MS: "2000", MAX_DELIVERIES: String(MAX_DELIVERIES) },
  });
  proxy = await startTcpProxy("127.0.0.1", Number(new URL(env.config.shardUrls[DOWN]!).port || 5432));
  const proxied = new URL(env.config.shardUrls[DOWN]!);
  proxied.port = String(proxy.port);
  workerConfig = {
    ...env.config,
    shardUrls: env.config.shardUrls.map((url, i) => (i === DOWN ? proxied.toString() : url)),
  };
  app = await startIntake(env.config); // accepting touches no shard
  ledger = new LedgerReader(env.config.shardUrls);
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
});

afterAll(async () => {
  await Promise.all(inProcess.map((w) => w.stop()));
  await processWorker?.stop();
  await proxy?.close();
  await app?.close();
  await ledger?.close();
  await redis?.quit();
  await env?.cleanup();
});

describe("a shard stopped and restarted", () => {
  it("applies the other shards' operations while one is down, holds its own, and applies them once it is back", async () => {
    await proxy.down();
    inProcess.push(
      await startInProcessWorker(workerConfig, "outage-a"),
      await startInProcessWorker(workerConfig, "outage-b"),
    );
    const users = usersOnEveryShard("outage", 10);
    await acceptFor(users);
    const downIds = accepted.filter((op) => shardOf(op.userId) === DOWN).map((op) => op.id);

    await waitFor(othersApplied, "the shards that are up to apply their operations");
    const retries = async () =>
      (
        await Promise.all(inProcess.map((w) => counterValue(w.metrics.shardRetries, { shard: String(DOWN) })))
      ).reduce((a, b) => a + b);
    await waitFor(async () => (await retries()) >= 4, "the workers to retry the stopped shard");
    expect((await ledger.countPerShard())[DOWN]).toBe(0);
    expect(await pendingCount(redis, keys)).toBe(downIds.length); // held, not acknowledged
    expect((await pendingStatuses(redis, keys, downIds)).sort()).toEqual([...downIds].sort());
    expect(await deadLetters(redis, keys)).toEqual([]);

    // The worker holding the most stops; the other claims its entries, now at MAX_DELIVERIES. Still the
    // shard's fault, not the messages': they must wait, not be dead-lettered.
    const holders = await Promise.all(
      inProcess.map(async (w) => (await pendingEntries(redis, keys, w.worker.consumer)).length),
    );
    const [leaving, staying] =
      holders[0]! >= holders[1]! ? [inProcess[0]!, inProcess[1]!] : [inProcess[1]!, inProcess[0]!];
    await leaving.stop();
    await waitFor(async () => {
      const pending = await pendingEntries(redis, keys);
      return (
        pending.length === downIds.length &&
        pending.every((e) => e.consumer === staying.worker.consumer) &&
        pending.some((e) => e.deliveries >= MAX_DELIVERIES)
      );
    }, "the staying worker to claim the stopped worker's entries");
    await waitFor(async () => (await retries()) >= 8, "more retries after the claim");
    expect(await deadLetters(redis, keys)).toEqual([]);
    expect((await ledger.countPerShard())[DOWN]).toBe(0);

    await proxy.up();
    await waitFor(allApplied, "the restarted shard's operations to be applied", 45_000, () => staying.logs());
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
    await staying.stop();
  });

  it("survives the shard going away in the middle of a transaction, and applies that batch once it is back", async () => {
    const users = usersOnEveryShard("midtx", 10);
    const hotUser = users.find((user) => shardOf(user) === DOWN)!;
    const lock = await lockWallet(env.config.shardUrls[DOWN]!, hotUser); // on the real shard, behind the proxy
    try {
      // All accepted first, so the worker's first batch spans every shard.
      await acceptFor([hotUser, ...users.filter((user) => user !== hotUser)]);
      processWorker = await startWorkerProcess(workerConfig);
      // Each shard's batch is acknowledged on its own: the other shards' entries are applied and
      // acknowledged while the hot shard's batch still waits on its lock, pending.
      const hotIds = new Set(accepted.filter((op) => op.userId === hotUser).map((op) => op.id));
      await waitFor(async () => {
        const { pending, applied } = await appliedButUnacknowledged(
          redis,
          keys,
          consumerOf(processWorker!),
          (ids) => ledger.presentIds(ids),
        );
        return (await ledger.count()) > 0 && applied.length === 0 && pending.some((id) => hotIds.has(id));
      }, "the other shards applied while the hot shard's batch waits");
      await proxy.down(); // cuts the waiting transaction's connection
    } finally {
      await lock.release();
    }
    // The same process goes on: no other worker runs, so operations accepted after the cut are only applied
    // if it lives.
    await acceptFor(usersOnEveryShard("after-cut", 5).filter((user) => shardOf(user) !== DOWN));
    await waitFor(othersApplied, "the shards that are up to apply their operations", 45_000, () =>
      processWorker!.output(),
    );
    expect(processWorker!.child.exitCode).toBe(null);
    expect(await deadLetters(redis, keys)).toEqual([]);

    await proxy.up();
    await waitFor(allApplied, "the restarted shard's operations to be applied", 45_000, () =>
      processWorker!.output(),
    );
    expect(processWorker!.child.exitCode).toBe(null);
    const snapshot = await ledger.read();
    expectEachAppliedOnce(snapshot, accepted, SHARDS);
    expectWalletsBalance(snapshot);
    expect(await deadLetters(redis, keys)).toEqual([]);
  });
});
