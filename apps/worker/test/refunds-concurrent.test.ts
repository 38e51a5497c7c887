// 100 partial refunds of one payment at once, through the intake, applied by two worker processes: the shard
// lets through exactly as many as the payment covers, the wallet gets exactly those back, and reconcile finds
// the books balanced (balance = deposits - payments + refunds; refunded = its succeeded refunds).
import { createKysely, type GlobalDatabase, type ShardDatabase } from "@floodgate/db";
import { parseOperationId } from "@floodgate/domain";
import { QueueKeys } from "@floodgate/queue";
import { ShardMap } from "@floodgate/shard-router";
import {
  createTestEnvironment,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deposit, type IntakeApp, pay, startIntake } from "./support/intake-client.ts";
import { refund, runReconcile, settledViews } from "./support/refund-client.ts";

const REFUNDS = 100;
const PAID = 10_000;
const EACH = 150; // 66 fit in 10,000 (9,900); the 67th would exceed it

let env: TestEnvironment;
let app: IntakeApp;
let global: Kysely<GlobalDatabase>;
let shards: Kysely<ShardDatabase>[];
const workers: WorkerProcess[] = [];
let paymentId: string;
let views: Record<string, unknown>[];

beforeAll(async () => {
  env = await createTestEnvironment("refunds-concurrent");
  app = await startIntake(env.config);
  global = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 1 });
  shards = env.config.shardUrls.map((url) => createKysely<ShardDatabase>(url, { max: 1 }));
  workers.push(...(await Promise.all([startWorkerProcess(env.config), startWorkerProcess(env.config)])));
  const opening = await deposit(app, "refund-hot", PAID + 500);
  // Other users' traffic in the same batches: deposits and payments that refunds must not disturb.
  const others = await Promise.all(
    Array.from({ length: 20 }, (_, i) => deposit(app, `refund-neighbour-${i}`, 1_000)),
  );
  await settledViews(app, "/v1/deposits/", [opening.id, ...others.map((o) => o.id)]);
  const payment = await pay(app, "refund-hot", PAID);
  const [paid] = await settledViews(app, "/v1/payments/", [payment.id]);
  expect(paid!.status).toBe("succeeded");
  paymentId = payment.id;
  const neighbours = Array.from({ length: 20 }, (_, i) => pay(app, `refund-neighbour-${i}`, 300));
  const refunds = Array.from({ length: REFUNDS }, (_, i) =>
    refund(app, { paymentId, amount: EACH, reason: `parallel ${i}` }),
  );
  const [ids, neighbourPayments] = await Promise.all([Promise.all(refunds), Promise.all(neighbours)]);
  views = await settledViews(app, "/v1/refunds/", ids, 90_000);
  await settledViews(
    app,
    "/v1/payments/",
    neighbourPayments.map((p) => p.id),
  );
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await app?.close();
  await Promise.all([global, ...(shards ?? [])].map((db) => db?.destroy()));
  await env?.cleanup();
});

const shardOfPayment = () =>
  shards[ShardMap.contiguous(shards.length).shardForBucket(parseOperationId(paymentId)!.bucket)]!;

describe("100 partial refunds of one payment at once", () => {
  it("let through exactly as many as the payment covers; the rest fail refund_exceeds_payment", () => {
    const succeeded = views.filter((v) => v.status === "succeeded");
    const failed = views.filter((v) => v.status === "failed");
    expect(succeeded).toHaveLength(Math.floor(PAID / EACH));
    expect(failed).toHaveLength(REFUNDS - Math.floor(PAID / EACH));
    expect(failed.every((v) => v.failureReason === "refund_exceeds_payment")).toBe(true);
  });

  it("raise the payment's refunded total to what succeeded, never above its amount, with one row each", async () => {
    const db = shardOfPayment();
    const payment = await db
      .selectFrom("payments")
      .select(["amount", "refunded"])
      .where("id", "=", paymentId)
      .executeTakeFirstOrThrow();
    expect(Number(payment.refunded)).toBe(Math.floor(PAID / EACH) * EACH);
    expect(Number(payment.refunded)).toBeLessThanOrEqual(Number(payment.amount));
    const rows = await db.selectFrom("refunds").selectAll().where("payment_id", "=", paymentId).execute();
    expect(rows).toHaveLength(REFUNDS);
    const refunded = rows
      .filter((r) => r.status === "succeeded")
      .reduce((sum, r) => sum + Number(r.amount), 0);
    expect(refunded).toBe(Number(payment.refunded));
    expect(rows.every((r) => r.user_id === "refund-hot")).toBe(true);
  });

  it("credit the wallet with exactly what succeeded", async () => {
    const wallet = await shardOfPayment()
      .selectFrom("wallets")
      .select("balance")
      .where("user_id", "=", "refund-hot")
      .executeTakeFirstOrThrow();
    expect(Number(wallet.balance)).toBe(500 + Math.floor(PAID / EACH) * EACH);
  });

  it("leave the books balanced by reconcile's money checks", async () => {
    const report = await runReconcile(
      app,
      global,
      shards,
      new QueueKeys(env.config.redisPrefix, env.config.streamPartitions),
    );
    expect(report.findings).toEqual([]);
  });

  it("and reconcile names a wallet or a payment edited behind the workers' back", async () => {
    const keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
    const db = shardOfPayment();
    await db.updateTable("payments").set({ refunded: 0 }).where("id", "=", paymentId).execute();
    await sql`update wallets set balance = balance + 1 where user_id = 'refund-hot'`.execute(db);
    try {
      const report = await runReconcile(app, global, shards, keys);
      expect(report.findings.map((f) => [f.subject, f.id, f.kind])).toEqual(
        expect.arrayContaining([
          ["wallet", "refund-hot", "wallet_balance"],
          ["payment", paymentId, "payment_refunded"],
        ]),
      );
      expect(report.findings).toHaveLength(2);
    } finally {
      await db
        .updateTable("payments")
        .set({ refunded: Math.floor(PAID / EACH) * EACH })
        .where("id", "=", paymentId)
        .execute();
      await sql`update wallets set balance = balance - 1 where user_id = 'refund-hot'`.execute(db);
    }
    expect((await runReconcile(app, global, shards, keys)).findings).toEqual([]);
  });

  it("and a full refund then gives back exactly what is left", async () => {
    const id = await refund(app, { paymentId });
    const [view] = await settledViews(app, "/v1/refunds/", [id]);
    expect(view).toMatchObject({ status: "succeeded", amount: PAID % EACH });
  });
});
