// The per-user cap on unpaid units (issue 17) through the real intake, a worker, Redis and the shards: the units
// an order counts stop counting once it is paid or cancelled, exactly once whatever comes after (a second
// payment, a cancel of a paid order, a redelivered settlement or release). Expiry is in orders-expiry.test.ts,
// which runs with a short ORDER_TTL_SECONDS.
import type { GlobalDatabase, ShardDatabase } from "@floodgate/db";
import type { QueueKeys } from "@floodgate/queue";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { releaseOrders, settlePaidOrders } from "@floodgate/reservations";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deposit, type IntakeApp } from "./support/intake-client.ts";
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

let app: IntakeApp;
let redis: ScriptedRedis;
let keys: QueueKeys;
let global: Kysely<GlobalDatabase>;
let shards: Kysely<ShardDatabase>[];

let stack: OrdersStack | undefined;

beforeAll(async () => {
  stack = await startOrdersStack("orders-unit-limit");
  ({ app, redis, keys, global, shards } = stack);
});

afterAll(async () => {
  await stack?.stop();
});

const held = async (productId: string, userId: string) =>
  Number((await redis.get(keys.unpaidUnits(productId, userId))) ?? 0);
const drained = () => waitFor(async () => (await unfinishedCount(redis, keys)) === 0, "the queue to drain");
async function place(userId: string, productId: string, quantity: number) {
  const response = await placeOrder(app, { userId, items: [{ productId, quantity }] });
  expect(response.statusCode, response.body).toBe(202);
  return response.json().id as string;
}
async function waitForStatus(orderId: string, status: string) {
  await waitFor(async () => (await orderView(app, orderId)).status === status, `order ${orderId} ${status}`);
}
async function paymentOutcome(paymentId: string) {
  let view: Record<string, unknown> | null = null;
  await waitFor(async () => {
    view = await operationView(app, `/v1/payments/${paymentId}`);
    return view !== null && view.status !== "pending";
  }, `payment ${paymentId}`);
  return view as unknown as Record<string, unknown>;
}
async function expectStockInvariant(productId: string) {
  await drained();
  const [state] = await stockState(global, shards, redis, keys, [productId]);
  expect(state!.received).toBe(state!.stock + state!.liveOrderUnits);
  expect(state!.available).toBe(state!.stock);
}

describe("paying an order", () => {
  it("frees its units once: the next order fits, and nothing after the payment frees them again", async () => {
    const productId = await createProduct(app, 50, 1_000, 5);
    await deposit(app, "pays-to-free", 10_000);
    const paid = await place("pays-to-free", productId, 2);
    const unpaid = await place("pays-to-free", productId, 3);
    expect(await held(productId, "pays-to-free")).toBe(5);
    const refused = await placeOrder(app, { userId: "pays-to-free", items: [{ productId, quantity: 1 }] });
    expect(refused.json()).toMatchObject({ code: "unit_limit_exceeded", lines: [{ held: 5, limit: 5 }] });

    await waitForStatus(paid, "awaiting_payment");
    const payment = await payOrder(app, "pays-to-free", paid, 2_000);
    // The worker lowers the count before it writes the payment's status: seen succeeded, the units are free.
    expect(await paymentOutcome(payment)).toMatchObject({ status: "succeeded" });
    expect(await held(productId, "pays-to-free")).toBe(3);

    // A second payment of the paid order, a cancel of it, and a redelivered settlement free nothing more.
    const again = await payOrder(app, "pays-to-free", paid, 2_000);
    expect(await paymentOutcome(again)).toMatchObject({
      status: "failed",
      failureReason: "order_not_payable",
    });
    expect((await cancelOrder(app, paid)).statusCode).toBe(202);
    await drained();
    expect((await orderView(app, paid)).status).toBe("paid");
    await settlePaidOrders(redis, keys, [
      { orderId: paid, userId: "pays-to-free", items: [{ productId, quantity: 2 }] },
    ]);
    expect(await held(productId, "pays-to-free")).toBe(3);

    const next = await place("pays-to-free", productId, 2);
    expect(await held(productId, "pays-to-free")).toBe(5);
    expect((await orderView(app, unpaid)).status).toBe("awaiting_payment");
    // Applied before the stock is compared.
    await waitForStatus(next, "awaiting_payment");
    await expectStockInvariant(productId);
  });
});

describe("cancelling an order", () => {
  it("frees its units once, and another user's units are their own", async () => {
    const productId = await createProduct(app, 50, 1_000, 4);
    const cancelled = await place("cancels-to-free", productId, 4);
    expect(
      (await placeOrder(app, { userId: "cancels-to-free", items: [{ productId, quantity: 1 }] })).statusCode,
    ).toBe(409);
    // Another user is not held back by this one's units.
    await place("bystander", productId, 4);

    await waitForStatus(cancelled, "awaiting_payment");
    expect((await cancelOrder(app, cancelled)).statusCode).toBe(202);
    await waitForStatus(cancelled, "cancelled");
    await waitFor(async () => (await held(productId, "cancels-to-free")) === 0, "the units to be freed");
    expect(await redis.exists(keys.unpaidUnits(productId, "cancels-to-free"))).toBe(0);

    const next = await place("cancels-to-free", productId, 3);
    expect(await held(productId, "cancels-to-free")).toBe(3);
    // A redelivered release and a second cancel free nothing more.
    await releaseOrders(
      redis,
      keys,
      [{ orderId: cancelled, userId: "cancels-to-free", items: [{ productId, quantity: 4 }] }],
      3600,
    );
    expect((await cancelOrder(app, cancelled)).json()).toMatchObject({ code: "order_not_cancellable" });
    await waitForStatus(next, "awaiting_payment");
    await drained();
    expect(await held(productId, "cancels-to-free")).toBe(3);
    expect(await held(productId, "bystander")).toBe(4);
    await expectStockInvariant(productId);
  });
});
