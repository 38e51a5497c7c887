// Which webhook event an operation's outcome raises: one table, keyed by the operation kind as a string, so a
// new kind (refunds) is one line here. Each event's `data` is the operation's body as its GET route shows it,
// built from the message and its decision (no extra read in the shard transaction). Orders that reached a
// final state (paid, cancelled, expired) carry no data here: the relay reads the order from the shard, where
// that state no longer changes.
import { moneyOperationBody, type WebhookEventType } from "@floodgate/domain";

/** What the shard decided for one operation in this transaction (apply-shard-batch.ts' decisions). */
export interface DecidedOperation {
  message: { id: string; kind: string; userId: string; createdAt: number } & Record<string, unknown>;
  status: "succeeded" | "failed";
  failureReason?: string;
}

export const EVENT_BY_OUTCOME: Record<
  string,
  Partial<Record<DecidedOperation["status"], WebhookEventType>>
> = {
  payment: { succeeded: "payment.succeeded", failed: "payment.failed" },
  deposit: { succeeded: "deposit.succeeded" },
  coupon_issue: { succeeded: "coupon.issued" },
  order: { succeeded: "order.awaiting_payment" },
  refund: { succeeded: "refund.succeeded", failed: "refund.failed" },
};

/** Events about an order another operation moved (its payment, its end request). */
export const ORDER_EVENT_BY_STATUS = {
  paid: "order.paid",
  cancelled: "order.cancelled",
  expired: "order.expired",
} as const satisfies Record<string, WebhookEventType>;

/** A provider payment whose charge pays nothing (provider-payment-ledger.ts): the shop refunds it there. */
export const PROVIDER_PAYMENT_ORPHANED = "order.provider_payment_orphaned" satisfies WebhookEventType;

const iso = (ms: number) => new Date(ms).toISOString();

/** The GET view of a decided operation, as of `completedAt`. */
export function operationData(decided: DecidedOperation, completedAt: number): Record<string, unknown> {
  const { message, status, failureReason } = decided;
  const failure = failureReason ? { failureReason } : {};
  switch (message.kind) {
    case "payment":
    case "deposit":
      return moneyOperationBody({
        id: message.id,
        userId: message.userId,
        amount: message.amount as number,
        currency: message.currency as string,
        orderId: message.orderId as string | undefined,
        status,
        failureReason,
        createdAt: message.createdAt,
        completedAt,
      });
    case "coupon_issue":
      return {
        id: message.id,
        couponId: message.couponId,
        userId: message.userId,
        status,
        ...failure,
        createdAt: iso(message.createdAt),
        completedAt: iso(completedAt),
      };
    case "order": {
      const amount = message.amount as number;
      const discount = message.discount as number;
      return {
        id: message.id,
        userId: message.userId,
        status: "awaiting_payment",
        items: message.items,
        subtotal: amount + discount,
        discount,
        amount,
        currency: message.currency,
        ...(message.couponIssueId ? { couponIssueId: message.couponIssueId } : {}),
        createdAt: iso(message.createdAt),
        expiresAt: iso(message.expiresAt as number),
        updatedAt: iso(completedAt),
      };
    }
    default: {
      // A kind without a view of its own here: its message (less the envelope's version) and its outcome.
      const { v: _version, ...fields } = message;
      return {
        ...fields,
        status,
        ...failure,
        createdAt: iso(message.createdAt),
        completedAt: iso(completedAt),
      };
    }
  }
}
