// A user's wallet, payments and deposits live on one shard: the one its bucket maps to. Ids name that bucket.
import { parseOperationId } from "@floodgate/domain";
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { bucketForUser, ShardMap } from "@floodgate/shard-router";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InProcessWorker, startInProcessWorker } from "./support/in-process-worker.ts";
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
import { LedgerReader } from "./support/ledger-reader.ts";
import { waitFor } from "./support/wait-for.ts";

const SHARDS = 4;
let env: TestEnvironment;
let app: IntakeApp;
let worker: InProcessWorker;
let ledger: LedgerReader;
let redis: ScriptedRedis;
const accepted: AcceptedOperation[] = [];
const users = Array.from({ length: 40 }, (_, i) => `route-${i}`);
const map = ShardMap.contiguous(SHARDS);
const shardOf = (userId: string) => map.shardForBucket(bucketForUser(userId));

beforeAll(async () => {
  env = await createTestEnvironment("shard-routing", { shards: SHARDS });
  app = await startIntake(env.config);
  worker = await startInProcessWorker(env.config, "routing-worker");
  ledger = new LedgerReader(env.config.shardUrls);
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  for (const user of users) {
    accepted.push(await deposit(app, user, 1000));
    accepted.push(await pay(app, user, 300));
    accepted.push(await pay(app, user, 5000)); // fails: more than the balance
  }
  await waitFor(async () => (await ledger.count()) === accepted.length, "every operation to be applied");
});

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await ledger?.close();
  await redis?.quit();
  await env?.cleanup();
});

describe("shard routing", () => {
  it("spreads the users over every shard", () => {
    expect(new Set(users.map(shardOf)).size).toBe(SHARDS);
  });

  it("puts a user's wallet, payments and deposits on the shard its bucket maps to, and nowhere else", async () => {
    const snapshot = await ledger.read();
    expectEachAppliedOnce(snapshot, accepted, SHARDS); // includes: each row on shardFor(bucketForUser(userId))
    const walletShards = Object.fromEntries(snapshot.wallets.map((w) => [w.userId, w.shard]));
    expect(walletShards).toEqual(Object.fromEntries(users.map((user) => [user, shardOf(user)])));
    const operationShards = new Map<string, Set<number>>();
    for (const op of snapshot.operations) {
      operationShards.set(op.userId, (operationShards.get(op.userId) ?? new Set()).add(op.shard));
    }
    expect(
      users.filter((user) => [...(operationShards.get(user) ?? [])].join() !== String(shardOf(user))),
    ).toEqual([]);
    expectWalletsBalance(snapshot);
  });

  it("mints operation ids whose bucket names the owning shard", () => {
    for (const op of accepted) {
      const parsed = parseOperationId(op.id);
      expect(parsed).toMatchObject({ kind: op.kind, bucket: bucketForUser(op.userId) });
      expect(map.shardForBucket(parsed!.bucket)).toBe(shardOf(op.userId));
    }
  });

  it("answers balances and, once the Redis status is gone, operations from the owning shard", async () => {
    const keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
    for (const user of users.slice(0, 8)) {
      const wallet = await documentedInject(app, {
        method: "GET",
        url: `/v1/wallets/${user}`,
        headers: asShop(app),
      });
      expect(wallet.json()).toMatchObject({ userId: user, balance: 700 });
    }
    for (const op of accepted.slice(0, 24)) {
      await redis.del(keys.status(keys.partitionForOperation(op.id)!, op.id)); // as if its TTL had passed
      const url = op.kind === "payment" ? `/v1/payments/${op.id}` : `/v1/deposits/${op.id}`;
      const response = await documentedInject(app, { method: "GET", url, headers: asShop(app) });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        id: op.id,
        userId: op.userId,
        amount: op.amount,
        status: op.amount === 5000 ? "failed" : "succeeded",
      });
    }
  });
});
