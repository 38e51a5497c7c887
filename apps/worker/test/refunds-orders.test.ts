// Refunds of orders' payments: a full refund with restock gives the order's units back to Redis and Postgres
// once; a partial one leaves them sold (and refuses restock); and a refund racing its order's expiry (the
// payment lands before or after the expiry, the refund right behind it) leaves every order in one consistent
// end state, its stock counted once, its wallet debited and credited by what succeeded.
import { createKysely, type GlobalDatabase, type ShardDatabase } from "@floodgate/db";
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY } from "./support/coupon-client.ts";
import { type InProcessWorker, startInProcessWorker } from "./support/in-process-worker.ts";
import { asShop, deposit, documentedInject, type IntakeApp, startIntake } from "./support/intake-client.ts";
import { createProduct, orderView, payOrder, placeOrder, stockState } from "./support/order-client.ts";
import { unfinishedCount } from "./support/queue-inspection.ts";
import { refund, runReconcile, settledViews } from "./support/refund-client.ts";
import { waitFor } from "./support/wait-for.ts";

let env: TestEnvironment;
let app: IntakeApp;
/** The same intake with orders that last 10 minutes: for the orders that must be paid, never racing expiry. */
let lasting: IntakeApp;
let redis: ScriptedRedis;
let keys: QueueKeys;
let global: Kysely<GlobalDatabase>;
let shards: Kysely<ShardDatabase>[];
let workers: InProcessWorker[] = [];

beforeAll(async () => {
  // Orders placed through `app` expire 1 s after they are placed, so a payment and its refund can race the
  // expiry; those placed through `lasting` outlive any wait of a loaded machine between placing and paying.
  env = await createTestEnvironment("refunds-orders", {
    env: { ADMIN_API_KEY: ADMIN_KEY, ORDER_TTL_SECONDS: "1" },
  });
  app = await startIntake(env.config);
  lasting = await startIntake({ ...env.config, orderTtlSeconds: 600 });
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
  global = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 1 });
  shards = env.config.shardUrls.map((url) => createKysely<ShardDatabase>(url, { max: 1 }));
  workers = await Promise.all([
    startInProcessWorker(env.config, "refunds-a"),
    startInProcessWorker(env.config, "refunds-b"),
  ]);
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await app?.close();
  await lasting?.close();
  redis?.disconnect();
  await Promise.all([global, ...(shards ?? [])].map((db) => db?.destroy()));
  await env?.cleanup();
});

const drained = () => waitFor(async () => (await unfinishedCount(redis, keys)) === 0, "the queue to drain");
const balanceOf = async (userId: string) =>
  (await documentedInject(app, { url: `/v1/wallets/${userId}`, headers: asShop(app) })).json()
    .balance as number;

/**
 * A paid order of `quantity` units at 1,000 each, for a user who had exactly its price. Placed with a 10-minute
 * TTL: it must be applied, seen awaiting payment and paid before it expires, which 1 s does not leave a loaded
 * machine time for (expiry races are the last case's, on purpose).
 */
async function paidOrder(userId: string, productId: string, quantity: number) {
  const funded = await deposit(app, userId, quantity * 1_000);
  await settledViews(app, "/v1/deposits/", [funded.id]);
  const { id } = (await placeOrder(lasting, { userId, items: [{ productId, quantity }] })).json();
  await waitFor(
    async () => (await orderView(app, id)).status === "awaiting_payment",
    "the order to be placed",
  );
  const paymentId = await payOrder(app, userId, id, quantity * 1_000);
  await waitFor(async () => (await orderView(app, id)).status === "paid", "the order to be paid");
  return { orderId: id, paymentId };
}

describe("a full refund with restock", () => {
  it("ends the order refunded and returns its units to Redis and Postgres, once", async () => {
    const productId = await createProduct(app, 5);
    const { orderId, paymentId } = await paidOrder("restock-buyer", productId, 2);
    expect((await stockState(global, shards, redis, keys, [productId]))[0]).toMatchObject({
      stock: 3,
      available: 3,
    });
    const [view] = await settledViews(app, "/v1/refunds/", [
      await refund(app, { paymentId, restock: true, reason: "returned" }),
    ]);
    expect(view).toMatchObject({ status: "succeeded", amount: 2_000, restock: true, reason: "returned" });
    expect((await orderView(app, orderId)).status).toBe("refunded");
    expect(await balanceOf("restock-buyer")).toBe(2_000);
    // A second restocking refund has nothing left to give back: refused, and the units are not returned twice.
    const [again] = await settledViews(app, "/v1/refunds/", [
      await refund(app, { paymentId, restock: true }),
    ]);
    expect(again).toMatchObject({ status: "failed", failureReason: "refund_exceeds_payment" });
    await drained();
    const [state] = await stockState(global, shards, redis, keys, [productId]);
    expect(state).toMatchObject({ received: 5, stock: 5, ledgerUnits: 0, liveOrderUnits: 0, available: 5 });
  });
});

describe("a partial refund of an order", () => {
  it("marks it partially_refunded, refuses restock, and leaves its units sold until and after a full refund", async () => {
    const productId = await createProduct(app, 5);
    const { orderId, paymentId } = await paidOrder("partial-buyer", productId, 2);
    const [partial, restockPartial] = await settledViews(app, "/v1/refunds/", [
      await refund(app, { paymentId, amount: 500 }),
      await refund(app, { paymentId, amount: 500, restock: true }),
    ]);
    expect(partial).toMatchObject({ status: "succeeded", amount: 500 });
    expect(restockPartial).toMatchObject({ status: "failed", failureReason: "restock_not_possible" });
    expect((await orderView(app, orderId)).status).toBe("partially_refunded");
    const [rest] = await settledViews(app, "/v1/refunds/", [await refund(app, { paymentId })]);
    expect(rest).toMatchObject({ status: "succeeded", amount: 1_500 });
    expect((await orderView(app, orderId)).status).toBe("refunded");
    expect(await balanceOf("partial-buyer")).toBe(2_000);
    await drained();
    const [state] = await stockState(global, shards, redis, keys, [productId]);
    expect(state).toMatchObject({ received: 5, stock: 3, ledgerUnits: 2, liveOrderUnits: 2, available: 3 });
  });
});

describe("a refund racing its order's expiry", () => {
  it("leaves each order refunded (units back) or expired (payment and refund refused), its stock back once", async () => {
    const productId = await createProduct(app, 100, 1_000);
    const users = Array.from({ length: 24 }, (_, i) => `refund-racer-${i}`);
    await settledViews(
      app,
      "/v1/deposits/",
      (await Promise.all(users.map((u) => deposit(app, u, 1_000)))).map((d) => d.id),
    );
    const orders = await Promise.all(
      users.map(async (userId) => {
        const { id } = (await placeOrder(app, { userId, items: [{ productId, quantity: 1 }] })).json();
        return { userId, id };
      }),
    );
    // Pay around the moment the orders expire, each refund (with restock) right behind its payment.
    const raced = await Promise.all(
      orders.map(async (order, i) => {
        await new Promise((resolve) => setTimeout(resolve, 700 + i * 25));
        const paymentId = await payOrder(app, order.userId, order.id, 1_000);
        return { ...order, paymentId, refundId: await refund(app, { paymentId, restock: true }) };
      }),
    );
    const refunds = await settledViews(
      app,
      "/v1/refunds/",
      raced.map((r) => r.refundId),
    );
    await waitFor(async () => {
      const views = await Promise.all(orders.map((o) => orderView(app, o.id)));
      return views.every((v) => v.status === "expired" || v.status === "refunded");
    }, "every order to end refunded or expired");
    await drained();

    // A refund never outruns its payment (one that reaches the shard first waits for it), so no order stays
    // paid: each was paid and refunded with restock, or expired and refused the payment and so the refund.
    const outcomes = new Map<string, number>();
    for (const [i, { userId, id }] of raced.entries()) {
      const order = await orderView(app, id);
      outcomes.set(order.status, (outcomes.get(order.status) ?? 0) + 1);
      if (order.status === "refunded") {
        expect(refunds[i]).toMatchObject({ status: "succeeded", amount: 1_000, restock: true });
      } else {
        expect(order.status).toBe("expired");
        expect(refunds[i]).toMatchObject({ status: "failed", failureReason: "payment_not_succeeded" });
      }
      expect(await balanceOf(userId)).toBe(1_000);
    }
    expect([...outcomes.values()].reduce((a, b) => a + b, 0)).toBe(users.length);
    // Every unit came back exactly once, whichever way its order ended.
    const [state] = await stockState(global, shards, redis, keys, [productId]);
    expect(state).toMatchObject({
      received: 100,
      stock: 100,
      ledgerUnits: 0,
      liveOrderUnits: 0,
      available: 100,
    });
    expect((await runReconcile(app, global, shards, keys)).findings).toEqual([]);
  });
});
