// Concurrent deposits and payments through the intake, two worker processes: after the drain the books balance.
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import {
  createTestEnvironment,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  asShop,
  deposit,
  documentedInject,
  type IntakeApp,
  pay,
  startIntake,
} from "./support/intake-client.ts";
import {
  type AcceptedOperation,
  expectEachAppliedOnce,
  expectWalletsBalance,
} from "./support/ledger-assertions.ts";
import { type Ledger, LedgerReader } from "./support/ledger-reader.ts";
import { deadLetters, pendingCount } from "./support/queue-inspection.ts";
import { waitFor } from "./support/wait-for.ts";

const USERS = 60;
let env: TestEnvironment;
let app: IntakeApp;
let workers: WorkerProcess[] = [];
let ledger: LedgerReader;
let redis: ScriptedRedis;
let keys: QueueKeys;
let snapshot: Ledger;
const accepted: AcceptedOperation[] = [];

/** A fixed pseudo-random sequence, so a failure can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

beforeAll(async () => {
  env = await createTestEnvironment("wallet-invariant", {
    env: { VISIBILITY_TIMEOUT_MS: "1000", MAX_DELIVERIES: "3" },
  });
  app = await startIntake(env.config);
  ledger = new LedgerReader(env.config.shardUrls);
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
  workers = await Promise.all([startWorkerProcess(env.config), startWorkerProcess(env.config)]);

  const next = random(42);
  const requests: (() => Promise<AcceptedOperation>)[] = [];
  for (let u = 0; u < USERS; u++) {
    const user = `inv-${u}`;
    for (let i = 0; i < 3; i++) requests.push(() => deposit(app, user, 100 + Math.floor(next() * 1900)));
    for (let i = 0; i < 8; i++) requests.push(() => pay(app, user, 100 + Math.floor(next() * 1400)));
    requests.push(() => pay(app, user, 1_000_000)); // more than every deposit together: always fails
  }
  // Shuffled and 50 at a time, so each user's deposits and payments race each other and both workers.
  requests.sort(() => next() - 0.5);
  for (let i = 0; i < requests.length; i += 50) {
    accepted.push(...(await Promise.all(requests.slice(i, i + 50).map((send) => send()))));
  }
  await waitFor(
    async () => (await ledger.count()) === accepted.length,
    "every accepted operation to be applied",
  );
  await waitFor(async () => (await pendingCount(redis, keys)) === 0, "every entry to be acknowledged");
  snapshot = await ledger.read();
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await app?.close();
  await ledger?.close();
  await redis?.quit();
  await env?.cleanup();
});

describe("the wallet invariant after a concurrent run", () => {
  it("applies every accepted operation exactly once, on its user's shard", () => {
    expectEachAppliedOnce(snapshot, accepted, env.config.shardUrls.length);
  });

  it("balances: succeeded deposits - succeeded payments == balances, in total and per user, none below zero", () => {
    expectWalletsBalance(snapshot);
    const succeeded = (kind: string) =>
      snapshot.operations
        .filter((op) => op.kind === kind && op.status === "succeeded")
        .reduce((s, op) => s + op.amount, 0);
    const balances = snapshot.wallets.reduce((s, w) => s + w.balance, 0);
    expect(succeeded("deposit") - succeeded("payment")).toBe(balances);
    expect(snapshot.wallets).toHaveLength(USERS);
  });

  it("fails payments beyond the balance with insufficient_funds, and only those", () => {
    const failed = snapshot.operations.filter((op) => op.status === "failed");
    expect(failed.length).toBeGreaterThanOrEqual(USERS);
    expect(new Set(failed.map((op) => `${op.kind}:${op.failureReason}`))).toEqual(
      new Set(["payment:insufficient_funds"]),
    );
    expect(snapshot.operations.filter((op) => op.amount === 1_000_000 && op.status !== "failed")).toEqual([]);
  });

  it("reports the same final status through the intake as the shard holds, and dead-letters nothing", async () => {
    for (const op of snapshot.operations.slice(0, 120)) {
      const url = op.kind === "payment" ? `/v1/payments/${op.id}` : `/v1/deposits/${op.id}`;
      const view = (await documentedInject(app, { method: "GET", url, headers: asShop(app) })).json();
      expect([view.status, view.failureReason ?? null]).toEqual([op.status, op.failureReason]);
    }
    expect(await deadLetters(redis, keys)).toEqual([]);
  });

  it("trims the acknowledged entries from the streams (the last delivered one of each partition stays)", async () => {
    const length = async () => {
      let total = 0;
      for (const stream of keys.allStreams()) total += await redis.xlen(stream);
      return total;
    };
    await waitFor(async () => (await length()) <= keys.partitions, "the workers to trim the streams");
  });
});
