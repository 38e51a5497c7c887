// Orders end to end through the real intake, a worker, Redis and the shards: placed (stock reserved in one
// script), recorded on the user's shard with the global stock moved once per batch, paid through the payment
// pipeline, cancelled with stock and coupon given back in Redis and Postgres, and never oversold.
import type { GlobalDatabase, ShardDatabase } from "@floodgate/db";
import { newOperationId } from "@floodgate/domain";
import type { QueueKeys } from "@floodgate/queue";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { bucketForUser, ShardMap } from "@floodgate/shard-router";
import type { TestEnvironment } from "@floodgate/test-fixtures";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCoupon, requestIssue } from "./support/coupon-client.ts";
import { asShop, deposit, documentedInject, type IntakeApp } from "./support/intake-client.ts";
import {
  cancelOrder,
  createProduct,
  operationView,
  orderView,
  payOrder,
  placeOrder,
  stockState,
} from "./support/order-client.ts";
import { type OrdersStack, startOrdersStack } from "./support/orders-stack.ts";
import { unfinishedCount } from "./support/queue-inspection.ts";
import { waitFor } from "./support/wait-for.ts";

let env: TestEnvironment;
let app: IntakeApp;
let redis: ScriptedRedis;
let keys: QueueKeys;
let global: Kysely<GlobalDatabase>;
let shards: Kysely<ShardDatabase>[];

let stack: OrdersStack | undefined;

beforeAll(async () => {
  stack = await startOrdersStack("orders-lifecycle");
  ({ env, app, redis, keys, global, shards } = stack);
});

afterAll(async () => {
  await stack?.stop();
});

const settled = (status: string) => status !== "pending";
async function waitForOrder(orderId: string, until: (status: string) => boolean = settled) {
  let view: Record<string, unknown> = {};
  await waitFor(async () => {
    view = await orderView(app, orderId);
    return until(view.status as string);
  }, `order ${orderId}`);
  return view;
}
async function waitForOperation(path: string) {
  let view: Record<string, unknown> | null = null;
  await waitFor(async () => {
    view = await operationView(app, path);
    return view !== null && view.status !== "pending";
  }, path);
  return view as unknown as Record<string, unknown>;
}
const drained = () => waitFor(async () => (await unfinishedCount(redis, keys)) === 0, "the queue to drain");

async function expectStockInvariant(productId: string) {
  await drained();
  const [state] = await stockState(global, shards, redis, keys, [productId]);
  expect(state!.received).toBe(state!.stock + state!.liveOrderUnits);
  expect(state!.ledgerUnits).toBe(state!.liveOrderUnits);
  expect(state!.available).toBe(state!.stock);
  expect(state!.stock).toBeGreaterThanOrEqual(0);
  return state!;
}

describe("placing an order", () => {
  it("reserves the stock at once, answers its amount, and records it awaiting payment", async () => {
    const productId = await createProduct(app, 10, 1_500);
    const response = await placeOrder(app, { userId: "buyer-1", items: [{ productId, quantity: 3 }] });
    expect(response.statusCode, response.body).toBe(202);
    const { id, status, amount } = response.json();
    expect({ status, amount }).toEqual({ status: "pending", amount: 4_500 });
    expect(response.headers.location).toBe(`/v1/orders/${id}`);
    expect(Number(await redis.hget(keys.productState(productId), "available"))).toBe(7);

    const view = await waitForOrder(id);
    expect(view).toMatchObject({
      id,
      userId: "buyer-1",
      status: "awaiting_payment",
      items: [{ productId, quantity: 3, unitPrice: 1_500 }],
      subtotal: 4_500,
      discount: 0,
      amount: 4_500,
      currency: "KRW",
    });
    const state = await expectStockInvariant(productId);
    expect(state).toMatchObject({ received: 10, stock: 7, liveOrderUnits: 3 });
  });

  it("refuses an order that does not fit with 409 naming every short line, and changes nothing", async () => {
    const a = await createProduct(app, 2);
    const b = await createProduct(app, 5);
    const before = await redis.xlen(keys.stream(keys.partitionForUser("buyer-2")));
    const response = await placeOrder(app, {
      userId: "buyer-2",
      items: [
        { productId: a, quantity: 3 },
        { productId: b, quantity: 5 },
        { productId: a, quantity: 1 },
      ],
    });
    expect(response.statusCode).toBe(409);
    expect(response.headers["content-type"]).toContain("application/problem+json");
    expect(response.json()).toMatchObject({
      code: "out_of_stock",
      lines: [
        { line: 1, productId: a, requested: 3, available: 2 },
        { line: 3, productId: a, requested: 1, available: 2 },
      ],
    });
    expect(await redis.hget(keys.productState(a), "available")).toBe("2");
    expect(await redis.hget(keys.productState(b), "available")).toBe("5");
    expect(await redis.xlen(keys.stream(keys.partitionForUser("buyer-2")))).toBe(before);
  });

  it("answers 404 naming the line of an unknown product", async () => {
    const known = await createProduct(app, 5);
    const response = await placeOrder(app, {
      userId: "buyer-3",
      items: [
        { productId: known, quantity: 1 },
        { productId: "prd_01KAAAAAAAAAAAAAAAAAAAAAAA", quantity: 1 },
      ],
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: "not_found", field: "items.1.productId" });
    expect(await redis.hget(keys.productState(known), "available")).toBe("5");
  });

  it("replays the same Idempotency-Key with the same id and reserves once; another body is a 422", async () => {
    const productId = await createProduct(app, 10);
    const body = { userId: "buyer-4", items: [{ productId, quantity: 2 }] };
    const first = await placeOrder(app, body, "order-key-1");
    const again = await placeOrder(app, body, "order-key-1");
    expect(again.statusCode).toBe(202);
    expect(again.json()).toEqual(first.json());
    expect(again.headers["idempotent-replayed"]).toBe("true");
    const other = await placeOrder(app, { ...body, items: [{ productId, quantity: 3 }] }, "order-key-1");
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({ code: "idempotency_key_reused", existingId: first.json().id });
    await waitForOrder(first.json().id);
    expect((await expectStockInvariant(productId)).stock).toBe(8);
  });

  it("sells exactly the stock to a crowd and refuses the rest with 409", async () => {
    const productId = await createProduct(app, 25);
    const responses = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        placeOrder(app, { userId: `crowd-${i}`, items: [{ productId, quantity: 1 }] }),
      ),
    );
    const codes = responses.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 202)).toHaveLength(25);
    expect(codes.filter((c) => c === 409)).toHaveLength(35);
    await drained();
    const state = await expectStockInvariant(productId);
    expect(state).toMatchObject({ stock: 0, liveOrderUnits: 25, available: 0 });
  });
});

describe("paying an order", () => {
  it("marks it paid with the debit; a second payment, a wrong amount and another user's payment are refused without a debit", async () => {
    const productId = await createProduct(app, 10, 2_000);
    await deposit(app, "payer-1", 10_000);
    await deposit(app, "payer-2", 10_000);
    const order = (await placeOrder(app, { userId: "payer-1", items: [{ productId, quantity: 2 }] })).json();
    const other = (await placeOrder(app, { userId: "payer-1", items: [{ productId, quantity: 1 }] })).json();
    await waitForOrder(order.id);
    await waitForOrder(other.id);

    const paid = await payOrder(app, "payer-1", order.id, 4_000);
    const twice = await payOrder(app, "payer-1", order.id, 4_000);
    const wrongAmount = await payOrder(app, "payer-1", other.id, 1_999);
    const notTheirs = await payOrder(app, "payer-2", other.id, 2_000);
    expect(await waitForOperation(`/v1/payments/${paid}`)).toMatchObject({
      status: "succeeded",
      orderId: order.id,
    });
    expect(await waitForOperation(`/v1/payments/${twice}`)).toMatchObject({
      status: "failed",
      failureReason: "order_not_payable",
    });
    expect(await waitForOperation(`/v1/payments/${wrongAmount}`)).toMatchObject({
      status: "failed",
      failureReason: "amount_mismatch",
    });
    expect(await waitForOperation(`/v1/payments/${notTheirs}`)).toMatchObject({
      status: "failed",
      failureReason: "order_not_found",
    });
    expect(await orderView(app, order.id)).toMatchObject({ status: "paid", paymentId: paid });
    expect((await orderView(app, other.id)).status).toBe("awaiting_payment");
    const wallets = await Promise.all(
      ["payer-1", "payer-2"].map(
        async (u) =>
          (await documentedInject(app, { url: `/v1/wallets/${u}`, headers: asShop(app) })).json().balance,
      ),
    );
    expect(wallets).toEqual([6_000, 10_000]);
    await expectStockInvariant(productId);
  });
});

describe("a payment that reaches its shard before its order", () => {
  it("waits for the order (another worker may be applying it) and then pays it, once", async () => {
    const user = "pays-on-the-202";
    await deposit(app, user, 10_000);
    // An order id the intake could have answered: the payer's bucket, minted now. Its row appears below as if
    // another worker's batch had just committed it.
    const orderId = newOperationId("order", bucketForUser(user));
    const paymentId = await payOrder(app, user, orderId, 1_500);
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect((await operationView(app, `/v1/payments/${paymentId}`)).status).toBe("pending");
    const shard = shards[ShardMap.contiguous(shards.length).shardForBucket(bucketForUser(user))]!;
    await shard
      .insertInto("orders")
      .values({
        id: orderId,
        user_id: user,
        status: "awaiting_payment",
        failure_reason: null,
        amount: 1_500,
        discount: 0,
        currency: env.config.currency,
        coupon_issue_id: null,
        payment_id: null,
        expires_at: new Date(Date.now() + 600_000),
        created_at: new Date(),
      })
      .execute();
    expect(await waitForOperation(`/v1/payments/${paymentId}`)).toMatchObject({
      status: "succeeded",
      orderId,
    });
    const row = await shard
      .selectFrom("orders")
      .select(["status", "payment_id"])
      .where("id", "=", orderId)
      .executeTakeFirst();
    expect(row).toEqual({ status: "paid", payment_id: paymentId });
    const wallet = (await documentedInject(app, { url: `/v1/wallets/${user}`, headers: asShop(app) })).json();
    expect(wallet.balance).toBe(8_500);
  });
});

describe("cancelling an order", () => {
  it("gives its stock back in Redis and Postgres once; a second cancel is a 409 and payment is refused", async () => {
    const productId = await createProduct(app, 10);
    const { id } = (
      await placeOrder(app, { userId: "canceller-1", items: [{ productId, quantity: 4 }] })
    ).json();
    await waitForOrder(id);
    const cancel = await cancelOrder(app, id);
    expect(cancel.statusCode).toBe(202);
    expect(cancel.json()).toEqual({ id, status: "cancelling" });
    await waitForOrder(id, (status) => status === "cancelled");
    await waitFor(
      async () => (await redis.hget(keys.productState(productId), "available")) === "10",
      "stock back",
    );
    const state = await expectStockInvariant(productId);
    expect(state).toMatchObject({ stock: 10, liveOrderUnits: 0, ledgerUnits: 0 });

    expect((await cancelOrder(app, id)).json()).toMatchObject({ code: "order_not_cancellable" });
    await deposit(app, "canceller-1", 5_000);
    const payment = await payOrder(app, "canceller-1", id, 4_000);
    expect(await waitForOperation(`/v1/payments/${payment}`)).toMatchObject({
      status: "failed",
      failureReason: "order_not_payable",
    });
    expect((await expectStockInvariant(productId)).stock).toBe(10);
  });

  it("leaves a paid order paid", async () => {
    const productId = await createProduct(app, 10);
    await deposit(app, "canceller-2", 5_000);
    const { id } = (
      await placeOrder(app, { userId: "canceller-2", items: [{ productId, quantity: 1 }] })
    ).json();
    await payOrder(app, "canceller-2", id, 1_000);
    await waitForOrder(id, (status) => status === "paid");
    expect((await cancelOrder(app, id)).statusCode).toBe(202);
    await drained();
    expect((await orderView(app, id)).status).toBe("paid");
    expect((await expectStockInvariant(productId)).stock).toBe(9);
  });

  it("answers 404 for an order nobody placed and 400 for a malformed id", async () => {
    const unknown = await cancelOrder(app, "ord_01KAAAAAAAAAAAAAAAAAAAAAAA");
    expect(unknown.statusCode).toBe(404);
    expect((await cancelOrder(app, "nope")).statusCode).toBe(400);
    expect((await documentedInject(app, { url: "/v1/orders/nope", headers: asShop(app) })).statusCode).toBe(
      400,
    );
    expect(
      (
        await documentedInject(app, {
          url: "/v1/orders/ord_01KAAAAAAAAAAAAAAAAAAAAAAA",
          headers: asShop(app),
        })
      ).statusCode,
    ).toBe(404);
  });
});

describe("an order with a coupon", () => {
  it("takes the discount, redeems the coupon once, refuses it to a second order and to another user, and returns it on cancel", async () => {
    const productId = await createProduct(app, 10, 10_000);
    const couponId = await createCoupon(app, 5); // 20 % off
    const issue = await requestIssue(app, couponId, "coupon-buyer");
    expect(issue.statusCode).toBe(202);
    const couponIssueId = issue.json().id;
    await waitForOperation(`/v1/coupon-issues/${couponIssueId}`);

    const stranger = await placeOrder(app, {
      userId: "stranger",
      items: [{ productId, quantity: 1 }],
      couponIssueId,
    });
    expect(stranger.statusCode).toBe(422);
    expect(stranger.json()).toMatchObject({ code: "coupon_not_yours", field: "couponIssueId" });

    const first = await placeOrder(app, {
      userId: "coupon-buyer",
      items: [{ productId, quantity: 2 }],
      couponIssueId,
    });
    expect(first.statusCode, first.body).toBe(202);
    expect(first.json().amount).toBe(16_000);
    const second = await placeOrder(app, {
      userId: "coupon-buyer",
      items: [{ productId, quantity: 1 }],
      couponIssueId,
    });
    expect(second.statusCode).toBe(409);
    expect(second.json()).toMatchObject({ code: "coupon_already_used", existingId: first.json().id });

    const orderId = first.json().id;
    expect(await waitForOrder(orderId)).toMatchObject({
      subtotal: 20_000,
      discount: 4_000,
      amount: 16_000,
      couponIssueId,
    });
    const coupon = async () =>
      (
        await Promise.all(
          shards.map((db) =>
            db.selectFrom("issued_coupons").selectAll().where("id", "=", couponIssueId).execute(),
          ),
        )
      ).flat()[0]!;
    expect(await coupon()).toMatchObject({ status: "used", order_id: orderId });

    await cancelOrder(app, orderId);
    await waitForOrder(orderId, (status) => status === "cancelled");
    await drained();
    expect(await coupon()).toMatchObject({ status: "issued", order_id: null });
    const again = await placeOrder(app, {
      userId: "coupon-buyer",
      items: [{ productId, quantity: 1 }],
      couponIssueId,
    });
    expect(again.statusCode, again.body).toBe(202);
    expect(again.json().amount).toBe(8_000);
    await waitForOrder(again.json().id);
    expect(await coupon()).toMatchObject({ status: "used", order_id: again.json().id });
    await expectStockInvariant(productId);
  });
});
