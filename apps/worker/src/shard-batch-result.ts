// What one shard batch reports once committed: the final statuses to publish (decided now, or recorded before
// for a redelivery), the messages left out to wait for their order, and what the batch did to orders. Built
// from the parts applyShardBatch ran; the refunds are added by withRefunds (refunds/apply-refunds.ts).
import type {
  MoneyOperationMessage,
  OperationMessage,
  OrderCancelMessage,
  OrderSession,
  ProviderPaymentMessage,
  RefundMessage,
} from "@floodgate/domain";
import type { FinalStatus } from "@floodgate/queue";
import type { PaidOrder } from "@floodgate/reservations";
import type { CouponIssuesApplied } from "./apply-coupon-issues.ts";
import type { OrderEndsApplied } from "./orders/apply-order-ends.ts";
import type { OrdersApplied } from "./orders/apply-orders.ts";
import type { OrderOutcomes } from "./orders/order-outcomes.ts";
import type { MoneyOperationsApplied } from "./payments/apply-money-operations.ts";
import type { AppliedRow } from "./payments/money-rows.ts";

export interface ShardBatchResult {
  statuses: FinalStatus[];
  /**
   * Payments and end requests left out because their order is not on the shard yet (pay-orders.ts,
   * apply-order-ends.ts): not applied, not final.
   */
  awaitingOrder: (MoneyOperationMessage | OrderCancelMessage | RefundMessage | ProviderPaymentMessage)[];
  /** Newly applied in this transaction (redeliveries excluded). */
  applied: { message: OperationMessage; status: FinalStatus["status"] }[];
  redelivered: number;
  statements: number;
  orders: OrderOutcomes & {
    paid: number;
    /** Orders the batch's payments name that are paid (now or before): their unpaid units are settled. */
    paidOrders: PaidOrder[];
    endedNow: { orderId: string; status: "cancelled" | "expired" }[];
    /** Sessions of orders paid once recorded (nothing to pay): checkout done (orders/apply-orders.ts). */
    checkedOut: OrderSession[];
    /** Statements spent on orders and their ends (BEGIN/COMMIT are shared with the batch). */
    statements: number;
  };
}

/** The batch's parts but its refunds, as they came out of its transaction. */
export interface BatchParts {
  money: MoneyOperationsApplied;
  coupons: CouponIssuesApplied;
  orders: OrdersApplied;
  ends: OrderEndsApplied;
  /** The batch's end requests (order cancels and expiries), decided or left out to wait. */
  endRequests: OrderCancelMessage[];
  /** Spent outside the parts: BEGIN, COMMIT, the bucket fence's and the webhook outbox's. */
  statements: number;
}

export function shardBatchResult(parts: BatchParts): ShardBatchResult {
  const { money, coupons, orders, ends } = parts;
  const awaitingEnds = new Set<OperationMessage>(ends.awaiting);
  const decisions = [
    ...money.decisions,
    ...coupons.decisions,
    ...orders.decisions,
    // An end request "succeeds" once the shard has decided, whether or not the order could still end.
    ...parts.endRequests
      .filter((message) => !awaitingEnds.has(message))
      .map((message) => ({ message, status: "succeeded" as const, failureReason: undefined })),
  ];
  const existing: AppliedRow[] = [
    ...money.existing,
    ...coupons.redelivered.map((row) => ({
      id: row.id,
      status: "succeeded" as const,
      failure_reason: null,
      completed_at: new Date(row.completedAt),
    })),
    ...orders.redelivered.map((row) => ({
      id: row.id,
      status: row.status,
      failure_reason: row.failureReason ?? null,
      completed_at: new Date(row.completedAt),
    })),
  ];
  const completedAt = Date.now();
  const statuses: FinalStatus[] = [
    ...decisions.map((d) => ({
      id: d.message.id,
      status: d.status,
      completedAt,
      ...(d.failureReason ? { failureReason: d.failureReason } : {}),
    })),
    ...existing.map((row) => ({
      id: row.id,
      status: row.status,
      completedAt: new Date(row.completed_at).getTime(),
      ...(row.failure_reason ? { failureReason: row.failure_reason } : {}),
    })),
  ];
  return {
    statuses,
    awaitingOrder: [...money.awaitingOrder, ...ends.awaiting],
    applied: decisions.map((d) => ({ message: d.message, status: d.status })),
    redelivered: existing.length,
    statements:
      parts.statements + money.statements + coupons.statements + orders.statements + ends.statements,
    orders: {
      ended: [...orders.ended, ...ends.ended],
      awaiting: orders.awaiting,
      paid: money.paid,
      paidOrders: money.paidOrders,
      endedNow: ends.endedNow,
      checkedOut: orders.checkedOut,
      statements: orders.statements + ends.statements,
    },
  };
}
