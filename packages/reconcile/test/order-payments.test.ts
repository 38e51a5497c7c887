// Reconcile's paid orders, against real Postgres and Redis: orders paid from a wallet and at the shop's payment
// provider are counted apart, the provider-paid ones leave the wallet invariant (balance = deposits - payments
// + refunds) clean though no wallet moved, and a paid order whose payment is not its own is reported.
import { createKysely, type GlobalDatabase, type ShardDatabase } from "@floodgate/db";
import { newOperationId } from "@floodgate/domain";
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { bucketForUser } from "@floodgate/shard-router";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reconcile } from "../src/index.ts";

let env: TestEnvironment;
let redis: ScriptedRedis;
let keys: QueueKeys;
let global: Kysely<GlobalDatabase>;
let shard: Kysely<ShardDatabase>;

beforeAll(async () => {
  env = await createTestEnvironment("reconcile-order-payments", { shards: 1 });
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
  global = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 1 });
  shard = createKysely<ShardDatabase>(env.config.shardUrls[0]!, { max: 1 });
});

afterAll(async () => {
  redis?.disconnect();
  await Promise.all([global, shard].map((db) => db?.destroy()));
  await env?.cleanup();
});

const run = () => reconcile({ global, shards: [shard], redis, keys }, { dryRun: true });

const order = (
  id: string,
  userId: string,
  paymentId: string,
  provider?: { name: string; reference: string },
) => ({
  id,
  user_id: userId,
  status: "paid" as const,
  failure_reason: null,
  amount: 1_000,
  discount: 0,
  currency: "KRW",
  coupon_issue_id: null,
  payment_id: paymentId,
  provider: provider?.name ?? null,
  provider_reference: provider?.reference ?? null,
  expires_at: new Date(Date.now() + 60_000),
  created_at: new Date(),
});

const providerRow = (
  id: string,
  orderId: string,
  reference: string,
  status: "succeeded" | "failed",
  duplicateOf: string | null = null,
) => ({
  id,
  order_id: orderId,
  user_id: "p-user",
  provider: "stripe",
  reference,
  amount: 1_000,
  currency: "KRW",
  status,
  failure_reason: status === "failed" ? "order_already_paid" : null,
  duplicate_of: duplicateOf,
  created_at: new Date(),
});

describe("paid orders", () => {
  const walletOrder = newOperationId("order", bucketForUser("w-user"));
  const walletPayment = newOperationId("payment", bucketForUser("w-user"));
  const providerOrder = newOperationId("order", bucketForUser("p-user"));
  const [paid, duplicate, orphan] = [1, 2, 3].map(() =>
    newOperationId("provider_payment", bucketForUser("p-user")),
  ) as [string, string, string];

  beforeAll(async () => {
    await shard.insertInto("wallets").values({ user_id: "w-user", balance: 500 }).execute();
    await shard
      .insertInto("deposits")
      .values({
        id: newOperationId("deposit", bucketForUser("w-user")),
        user_id: "w-user",
        amount: 1_500,
        currency: "KRW",
        status: "succeeded",
        failure_reason: null,
        created_at: new Date(),
      })
      .execute();
    await shard
      .insertInto("payments")
      .values({
        id: walletPayment,
        user_id: "w-user",
        amount: 1_000,
        currency: "KRW",
        status: "succeeded",
        failure_reason: null,
        order_id: walletOrder,
        created_at: new Date(),
      })
      .execute();
    await shard
      .insertInto("orders")
      .values([
        order(walletOrder, "w-user", walletPayment),
        order(providerOrder, "p-user", paid, { name: "stripe", reference: "pi_1" }),
      ])
      .execute();
    // The charge, the same charge reported again, and a second charge the paid order orphaned; no wallet.
    await shard
      .insertInto("provider_payments")
      .values([
        providerRow(paid, providerOrder, "pi_1", "succeeded"),
        providerRow(duplicate, providerOrder, "pi_1", "succeeded", paid),
        providerRow(orphan, providerOrder, "pi_2", "failed"),
      ])
      .execute();
  });

  it("counts wallet-paid and provider-paid orders apart, and finds the wallet invariant clean", async () => {
    const report = await run();
    expect(report.findings).toEqual([]);
    expect(report.paidOrders).toEqual({ wallet: 1, provider: 1 });
  });

  it("reports a provider-paid order that names another payment than its charge's", async () => {
    await shard
      .updateTable("orders")
      .set({ payment_id: duplicate })
      .where("id", "=", providerOrder)
      .execute();
    const report = await run();
    expect(report.findings.map((f) => [f.id, f.kind, f.outcome])).toEqual([
      [providerOrder, "order_payment", "needs_human"],
      [providerOrder, "order_payment", "needs_human"],
    ]);
    expect(report.paidOrders).toEqual({ wallet: 1, provider: 0 });
    await shard.updateTable("orders").set({ payment_id: paid }).where("id", "=", providerOrder).execute();
  });
});
