// One transaction per shard per batch. Exactly once comes from the primary keys: an operation id already in
// the shard is a redelivery and is reported, not applied (each part below looks its ids up under its locks);
// an insert that still finds a conflict aborts the whole transaction.
// The parts run in this order: coupon issues (apply-coupon-issues.ts), orders (orders/apply-orders.ts),
// payments and deposits (payments/), provider payments (provider-payments/), order ends, refunds; so an order
// placed and paid in one batch is recorded before its payment, and a payment queued before a cancel is applied
// before it.

import type { ShardDatabase } from "@floodgate/db";
import type {
  CouponIssueMessage,
  MoneyOperationMessage,
  OperationMessage,
  OrderCancelMessage,
  OrderMessage,
} from "@floodgate/domain";
import type { Kysely } from "kysely";
import { applyCouponIssues, noCouponIssues } from "./apply-coupon-issues.ts";
import { FENCE_STATEMENTS, fenceBuckets } from "./bucket-fence.ts";
import { applyOrderEnds, noOrderEnds } from "./orders/apply-order-ends.ts";
import { applyOrders, noOrders } from "./orders/apply-orders.ts";
import { applyMoneyOperations, noMoneyOperations } from "./payments/apply-money-operations.ts";
import {
  applyProviderPayments,
  type ProviderPaymentsApplied,
  withProviderPayments,
} from "./provider-payments/apply-provider-payments.ts";
import { applyRefunds, type RefundsApplied, withRefunds } from "./refunds/apply-refunds.ts";
import { type BatchParts, type ShardBatchResult, shardBatchResult } from "./shard-batch-result.ts";
import type { SubscribedTypes } from "./webhooks/event-recording.ts";
import { type BatchOutcomes, writeWebhookOutbox } from "./webhooks/outbox-writer.ts";

export interface ApplyOptions {
  /**
   * Whether a message may already be on the shard (a redelivery, or a retry of a batch whose commit may have
   * happened). Payments and deposits it says no to skip the look-up of existing ids; if it is wrong, the
   * insert still finds the primary key taken and aborts the batch as a retryable ConcurrentApplyError. By
   * default every message may be.
   */
  mayBeApplied?: (message: OperationMessage) => boolean;
  /**
   * Whether a payment or an end request whose order is not on the shard yet may be left out to wait for it
   * (pay-orders.ts, apply-order-ends.ts); false when the worker already holds as many waiting messages as it
   * will: such payments then fail order_not_found, such end requests fail on their own (redelivered).
   */
  mayAwaitOrder?: boolean;
  /** Webhook event types some enabled endpoint subscribes to (outbox-writer.ts); none by default. */
  webhookEvents?: SubscribedTypes;
  /** The batch's buckets, fenced by the transaction's first statements (bucket-fence.ts); unfenced without. */
  buckets?: number[];
}

const NO_WEBHOOK_EVENTS: SubscribedTypes = new Set();

export async function applyShardBatch(
  db: Kysely<ShardDatabase>,
  messages: OperationMessage[],
  options: ApplyOptions = {},
): Promise<ShardBatchResult> {
  const mayBeApplied = options.mayBeApplied ?? (() => true);
  const mayAwaitOrder = options.mayAwaitOrder ?? true;
  const webhookEvents = options.webhookEvents ?? NO_WEBHOOK_EVENTS;
  const { money, coupons, orders, ends } = byKind(messages);
  const { refunds, providerPayments, ...parts } = await db.transaction().execute(async (trx) => {
    if (options.buckets !== undefined) await fenceBuckets(trx, options.buckets);
    // Awaited one after another, in the order written (the order above).
    const parts = {
      coupons: coupons.length > 0 ? await applyCouponIssues(trx, coupons) : noCouponIssues(),
      orders: orders.length > 0 ? await applyOrders(trx, orders) : noOrders(),
      money:
        money.length > 0
          ? await applyMoneyOperations(trx, money, money.filter(mayBeApplied), mayAwaitOrder, webhookEvents)
          : noMoneyOperations(),
      // Before the ends: an order's provider payment and its expiry meet under the order's row lock.
      providerPayments: await applyProviderPayments(trx, messages, mayAwaitOrder),
      ends: ends.length > 0 ? await applyOrderEnds(trx, ends, mayAwaitOrder) : noOrderEnds(),
      // A payment and its refund in one batch: the refund finds the payment on the shard.
      refunds: await applyRefunds(trx, messages, mayAwaitOrder),
    };
    // The events of what became final, committed with it: the payments' and deposits' own went with their
    // rows (money-write.ts); the rest, in at most one statement.
    const outbox = await writeWebhookOutbox(trx, outcomesOf(parts), webhookEvents);
    // + BEGIN, COMMIT, and the bucket fence's
    const statements = 2 + (options.buckets !== undefined ? FENCE_STATEMENTS : 0) + outbox;
    return { ...parts, statements };
  });
  // Statuses are dated once committed.
  return withProviderPayments(
    providerPayments,
    withRefunds(refunds, shardBatchResult({ ...parts, endRequests: ends })),
  );
}

function byKind(messages: OperationMessage[]) {
  return {
    money: messages.filter((m): m is MoneyOperationMessage => m.kind === "payment" || m.kind === "deposit"),
    coupons: messages.filter((m): m is CouponIssueMessage => m.kind === "coupon_issue"),
    orders: messages.filter((m): m is OrderMessage => m.kind === "order"),
    ends: messages.filter((m): m is OrderCancelMessage => m.kind === "order_cancel"),
  };
}

/** What the webhook events are made of: the operations decided now and the orders ended now. */
function outcomesOf(
  parts: Omit<BatchParts, "endRequests" | "statements"> & {
    refunds: RefundsApplied;
    providerPayments: ProviderPaymentsApplied;
  },
): BatchOutcomes {
  return {
    decisions: [
      ...parts.coupons.decisions,
      ...parts.orders.decisions,
      // A refund message names no user: the event carries the payment's, and the amount given back.
      ...parts.refunds.decisions.map((d) => ({
        ...d,
        message: { ...d.message, userId: d.userId ?? "", amount: d.amount ?? d.message.amount },
      })),
    ],
    moneyDecisions: parts.money.decisions,
    providerPayments: parts.providerPayments.decisions,
    endedOrders: parts.ends.endedNow,
  };
}
