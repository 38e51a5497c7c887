// Orders paid at the shop's own payment provider, with the real intake, real worker processes, Redis,
// Postgres and a webhook receiver: a charge pays its order once however often it is reported; a second charge
// for a paid order, a wrong amount and a charge that lost the race with the order's expiry fail with a code
// and raise order.provider_payment_orphaned (the shop refunds at its provider); no wallet moves, the stock
// comes back once, and reconcile finds nothing.
import { createKysely, type GlobalDatabase, type ShardDatabase } from "@floodgate/db";
import { newOperationId } from "@floodgate/domain";
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import {
  createTestEnvironment,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY } from "./support/coupon-client.ts";
import { asShop, documentedInject, type IntakeApp, startIntake } from "./support/intake-client.ts";
import { createProduct, orderView, placeOrder, stockState } from "./support/order-client.ts";
import { postProviderPayment, providerPayment } from "./support/provider-payment-client.ts";
import { unfinishedCount } from "./support/queue-inspection.ts";
import { runReconcile, settledViews } from "./support/refund-client.ts";
import { waitFor } from "./support/wait-for.ts";
import { createEndpoint } from "./support/webhook-endpoints.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./support/webhook-receiver.ts";

let env: TestEnvironment;
let app: IntakeApp;
/** The same intake with orders that last 10 minutes: for the orders that must not race their expiry. */
let lasting: IntakeApp;
let redis: ScriptedRedis;
let keys: QueueKeys;
let receiver: WebhookReceiver;
let global: Kysely<GlobalDatabase>;
let shards: Kysely<ShardDatabase>[];
let workers: WorkerProcess[] = [];

beforeAll(async () => {
  env = await createTestEnvironment("provider-payments", {
    env: { ADMIN_API_KEY: ADMIN_KEY, ORDER_TTL_SECONDS: "1", WEBHOOK_ALLOW_PRIVATE: "true" },
  });
  app = await startIntake(env.config);
  lasting = await startIntake({ ...env.config, orderTtlSeconds: 600 });
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
  global = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 1 });
  shards = env.config.shardUrls.map((url) => createKysely<ShardDatabase>(url, { max: 1 }));
  receiver = await startWebhookReceiver();
  const endpoint = await createEndpoint(app, receiver.url);
  receiver.setSecret(endpoint.secret);
  workers = [await startWorkerProcess(env.config), await startWorkerProcess(env.config)];
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await app?.close();
  await lasting?.close();
  await receiver?.close();
  redis?.disconnect();
  await Promise.all([global, ...(shards ?? [])].map((db) => db?.destroy()));
  await env?.cleanup();
});

const drained = () => waitFor(async () => (await unfinishedCount(redis, keys)) === 0, "the queue to drain");
const settled = (ids: string[]) => settledViews(app, "/v1/provider-payments/", ids);

/** An order of one unit at 1,000 that lasts 10 minutes, applied (awaiting payment). */
async function awaitingOrder(userId: string, productId: string) {
  const { id } = (await placeOrder(lasting, { userId, items: [{ productId, quantity: 1 }] })).json();
  await waitFor(
    async () => (await orderView(app, id)).status === "awaiting_payment",
    "the order to be placed",
  );
  return id as string;
}

/** The orphan events the receiver accepted, by provider payment id. */
const orphans = () =>
  new Map(
    receiver
      .accepted()
      .filter((event) => event.type === "order.provider_payment_orphaned")
      .map((event) => [(event.data as { id: string }).id, event.data as Record<string, unknown>]),
  );

const rowsOf = async (orderId: string) =>
  (
    await Promise.all(
      shards.map((db) =>
        db.selectFrom("provider_payments").selectAll().where("order_id", "=", orderId).execute(),
      ),
    )
  ).flat();

const walletsOf = async (userId: string) =>
  (
    await Promise.all(
      shards.map((db) => db.selectFrom("wallets").selectAll().where("user_id", "=", userId).execute()),
    )
  ).flat();

describe("a provider payment", () => {
  it("marks its order paid once: a retry replays, the same charge under another key is the same payment", async () => {
    const productId = await createProduct(app, 10);
    const orderId = await awaitingOrder("pp-buyer", productId);
    const charge = { provider: "stripe", reference: "pi_3PpOnce", amount: 1_000 };
    const first = await postProviderPayment(app, orderId, charge, "pp-key-1");
    expect(first.statusCode, first.body).toBe(202);
    const { id } = first.json();
    expect(id).toMatch(/^ppy_/);
    expect(first.headers.location).toBe(`/v1/provider-payments/${id}`);
    const retried = await postProviderPayment(app, orderId, charge, "pp-key-1");
    expect(retried.statusCode).toBe(202);
    expect(retried.headers["idempotent-replayed"]).toBe("true");
    expect(retried.json().id).toBe(id);
    // The provider's webhook delivered twice, and the shop's handler used a new key the second time.
    const again = await providerPayment(app, orderId, charge, "pp-key-2");
    expect(again).not.toBe(id);

    const views = await settled([id, again]);
    // Two workers read the partition: the report whose transaction commits first is the payment (usually the
    // first sent, not always), the other is recorded as its duplicate.
    const rows = await rowsOf(orderId);
    const original = rows.find((r) => r.duplicate_of === null)?.id;
    expect([id, again]).toContain(original);
    const other = original === id ? again : id;
    expect(rows.map((r) => [r.id, r.duplicate_of]).sort()).toEqual(
      [
        [original, null],
        [other, original],
      ].sort(),
    );
    const [view, duplicate] = original === id ? views : [views[1], views[0]];
    expect(view).toMatchObject({
      id: original,
      orderId,
      userId: "pp-buyer",
      provider: "stripe",
      reference: "pi_3PpOnce",
      amount: 1_000,
      status: "succeeded",
    });
    expect(duplicate).toMatchObject({ id: other, status: "succeeded", orderId, reference: "pi_3PpOnce" });
    expect(await orderView(app, orderId)).toMatchObject({
      status: "paid",
      paymentId: original,
      provider: "stripe",
      reference: "pi_3PpOnce",
    });
    // No wallet was read or written for it.
    expect(await walletsOf("pp-buyer")).toEqual([]);
    // A key reused for another charge is a 422 naming the first.
    const reused = await postProviderPayment(app, orderId, { ...charge, reference: "pi_other" }, "pp-key-1");
    expect(reused.statusCode).toBe(422);
    expect(reused.json()).toMatchObject({ code: "idempotency_key_reused", existingId: id });
    // The order is refunded at the provider, never through a wallet.
    const refund = await documentedInject(app, {
      method: "POST",
      url: "/v1/refunds",
      headers: asShop(app, { "idempotency-key": "pp-refund" }),
      payload: { paymentId: id },
    });
    expect(refund.statusCode).toBe(422);
    expect(refund.json()).toMatchObject({ code: "provider_payment_not_refundable", field: "paymentId" });
    await drained();
    expect(orphans().has(id) || orphans().has(again)).toBe(false);
  });

  it("fails a second charge for a paid order, and a wrong amount, each with a code and the orphan event", async () => {
    const productId = await createProduct(app, 10);
    // One shopper's two orders: on one shard, whose unique index knows every charge of both.
    const paidOrder = await awaitingOrder("pp-twice", productId);
    const unpaidOrder = await awaitingOrder("pp-twice", productId);
    const paid = await providerPayment(app, paidOrder, {
      provider: "toss",
      reference: "tgen_1",
      amount: 1_000,
    });
    await settled([paid]);
    const second = await providerPayment(app, paidOrder, {
      provider: "toss",
      reference: "tgen_2",
      amount: 1_000,
    });
    const short = await providerPayment(app, unpaidOrder, {
      provider: "toss",
      reference: "tgen_3",
      amount: 999,
    });
    // A charge that already paid one order cannot pay another: refused, but it orphans nothing.
    const reused = await providerPayment(app, unpaidOrder, {
      provider: "toss",
      reference: "tgen_1",
      amount: 1_000,
    });
    const [secondView, shortView, reusedView] = await settled([second, short, reused]);
    expect(secondView).toMatchObject({ status: "failed", failureReason: "order_already_paid" });
    expect(shortView).toMatchObject({ status: "failed", failureReason: "amount_mismatch", amount: 999 });
    expect(reusedView).toMatchObject({ status: "failed", failureReason: "reference_used" });
    expect(await orderView(app, paidOrder)).toMatchObject({
      status: "paid",
      paymentId: paid,
      reference: "tgen_1",
    });
    expect((await orderView(app, unpaidOrder)).status).toBe("awaiting_payment");
    await waitFor(() => orphans().has(second) && orphans().has(short), "the orphan events");
    expect(orphans().get(second)).toMatchObject({
      orderId: paidOrder,
      provider: "toss",
      reference: "tgen_2",
      status: "failed",
      failureReason: "order_already_paid",
    });
    expect(orphans().get(short)).toMatchObject({ failureReason: "amount_mismatch", amount: 999 });
    await drained();
    expect(orphans().has(reused)).toBe(false);
  });

  it("fails a charge for an order never recorded order_not_found, with the orphan event", async () => {
    // An order id older than the wait for an order on its way: no shard will ever hold it, so it fails at once.
    const missing = newOperationId("order", 7, Date.now() - 120_000);
    const charge = await providerPayment(app, missing, {
      provider: "toss",
      reference: "tgen_gone",
      amount: 500,
    });
    const [view] = await settled([charge]);
    expect(view).toMatchObject({ status: "failed", failureReason: "order_not_found" });
    await waitFor(() => orphans().has(charge), "the orphan event");
    expect(orphans().get(charge)).toMatchObject({
      orderId: missing,
      reference: "tgen_gone",
      failureReason: "order_not_found",
    });
  });

  it("refuses a request without Idempotency-Key or with a bad field, naming it, and stores nothing", async () => {
    const productId = await createProduct(app, 1);
    const orderId = await awaitingOrder("pp-bad", productId);
    const unkeyed = await postProviderPayment(
      app,
      orderId,
      { provider: "stripe", reference: "pi_x", amount: 1_000 },
      null,
    );
    expect(unkeyed.statusCode).toBe(400);
    expect(unkeyed.json()).toMatchObject({ code: "validation_error", field: "Idempotency-Key" });
    const badProvider = await postProviderPayment(app, orderId, {
      provider: "Stripe Inc",
      reference: "pi_x",
      amount: 1_000,
    });
    expect(badProvider.statusCode).toBe(400);
    expect(badProvider.json().field).toBe("provider");
    await drained();
    expect(await rowsOf(orderId)).toEqual([]);
    expect((await orderView(app, orderId)).status).toBe("awaiting_payment");
  });
});

describe("a provider payment racing its order's expiry", () => {
  it("leaves each order paid, or expired with the orphan event; never both, its stock back once", async () => {
    const productId = await createProduct(app, 100, 1_000);
    const users = Array.from({ length: 24 }, (_, i) => `pp-racer-${i}`);
    const orders = await Promise.all(
      users.map(async (userId) => {
        const response = await placeOrder(app, { userId, items: [{ productId, quantity: 1 }] });
        expect(response.statusCode, response.body).toBe(202);
        return response.json().id as string;
      }),
    );
    // Report each charge around the moment the orders expire (their TTL is 1 s).
    const payments = await Promise.all(
      orders.map(async (orderId, i) => {
        await new Promise((resolve) => setTimeout(resolve, 700 + i * 25));
        return providerPayment(app, orderId, { provider: "adyen", reference: `psp-${i}`, amount: 1_000 });
      }),
    );
    const views = await settled(payments);
    await waitFor(async () => {
      const states = await Promise.all(orders.map((id) => orderView(app, id)));
      return states.every((v) => v.status === "paid" || v.status === "expired");
    }, "every order to end paid or expired");
    await drained();

    let paid = 0;
    for (const [i, orderId] of orders.entries()) {
      const order = await orderView(app, orderId);
      if (order.status === "paid") {
        paid += 1;
        expect(views[i]).toMatchObject({ status: "succeeded" });
        expect(order).toMatchObject({ paymentId: payments[i], provider: "adyen", reference: `psp-${i}` });
      } else {
        expect(order.status).toBe("expired");
        expect(views[i]).toMatchObject({ status: "failed", failureReason: "order_not_payable" });
      }
    }
    const expired = orders.length - paid;
    await waitFor(
      () => payments.filter((id) => orphans().has(id)).length === expired,
      `${expired} orphan events`,
    );
    for (const [i, id] of payments.entries()) {
      expect(orphans().has(id)).toBe(views[i]!.status === "failed");
    }
    // Each expired order's unit came back exactly once; each paid order's stays sold.
    const [state] = await stockState(global, shards, redis, keys, [productId]);
    expect(state).toMatchObject({
      received: 100,
      stock: 100 - paid,
      ledgerUnits: paid,
      liveOrderUnits: paid,
      available: 100 - paid,
    });
    // No wallet exists for any of these shoppers, and the audits agree with the provider-paid orders.
    const wallets = await Promise.all(
      shards.map((db) =>
        sql<{ n: string }>`select count(*) as n from wallets where user_id like 'pp-%'`.execute(db),
      ),
    );
    expect(wallets.map((r) => Number(r.rows[0]!.n))).toEqual(shards.map(() => 0));
    expect((await runReconcile(app, global, shards, keys)).findings).toEqual([]);
  });
});
