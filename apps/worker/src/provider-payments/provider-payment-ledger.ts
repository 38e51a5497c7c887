// What the shard decides for each provider payment of a batch, from the locked orders and the first payments of
// the batch's (provider, reference) pairs: no query here. One charge is one payment: a pair already recorded
// (or met earlier in the batch) makes this one its duplicate, with the first one's outcome for the same order
// and reference_used for another. Otherwise the order must await payment and cost exactly the amount the
// provider took; a refusal of that kind is an orphan (the shopper's money was taken: the shop refunds it).
import type { FailureReason, ProviderPaymentMessage } from "@floodgate/domain";
import type { PaidOrder } from "@floodgate/reservations";

export interface LockedOrder {
  userId: string;
  status: string;
  amount: number;
  items: PaidOrder["items"];
  session?: PaidOrder["session"];
}

/** The first payment recorded for a (provider, reference). */
export interface OriginalPayment {
  id: string;
  orderId: string;
  status: "succeeded" | "failed";
  failureReason: FailureReason | null;
}

export interface ProviderPaymentDecision {
  message: ProviderPaymentMessage;
  status: "succeeded" | "failed";
  failureReason?: FailureReason;
  /** The order's user (null: the order is not on the shard). */
  userId: string | null;
  /** The first payment of the same charge, when this one repeats it (no order change, no event). */
  duplicateOf: string | null;
  /** The shopper's money was taken and pays nothing: order.provider_payment_orphaned. */
  orphaned: boolean;
}

/** Refusals that leave the provider's charge paying nothing. order_not_found too: an order still unrecorded after
 * the wait (a shard read-only for minutes) is recorded later and expires unpaid, and a made-up order id was still
 * charged at the provider; either way only the shop can give the money back. (reference_used is not one: that
 * charge already paid the order it was first reported for.) */
const ORPHANING: ReadonlySet<FailureReason> = new Set([
  "order_not_payable",
  "order_already_paid",
  "amount_mismatch",
  "order_not_found",
]);

/** Orders a wallet or a provider already paid (a refund moves a paid order on, but it was paid). */
const PAID_STATUSES: ReadonlySet<string> = new Set(["paid", "refunded", "partially_refunded"]);

export const pairKey = (provider: string, reference: string) => `${provider}\n${reference}`;

export class ProviderPaymentLedger {
  readonly #orders: Map<string, LockedOrder>;
  readonly #originals: Map<string, OriginalPayment>;
  readonly #paid: ProviderPaymentMessage[] = [];

  constructor(orders: Map<string, LockedOrder>, originals: Map<string, OriginalPayment>) {
    this.#orders = orders;
    this.#originals = originals;
  }

  holdsOrder(orderId: string): boolean {
    return this.#orders.has(orderId);
  }

  decide(message: ProviderPaymentMessage): ProviderPaymentDecision {
    const order = this.#orders.get(message.orderId);
    const userId = order?.userId ?? null;
    const key = pairKey(message.provider, message.reference);
    const original = this.#originals.get(key);
    if (original !== undefined) {
      const sameOrder = original.orderId === message.orderId;
      return {
        message,
        status: sameOrder ? original.status : "failed",
        ...(sameOrder
          ? original.failureReason
            ? { failureReason: original.failureReason }
            : {}
          : { failureReason: "reference_used" as const }),
        userId,
        duplicateOf: original.id,
        orphaned: false,
      };
    }
    const refusal = this.#refusal(message, order);
    this.#originals.set(key, {
      id: message.id,
      orderId: message.orderId,
      status: refusal ? "failed" : "succeeded",
      failureReason: refusal,
    });
    if (refusal) {
      return {
        message,
        status: "failed",
        failureReason: refusal,
        userId,
        duplicateOf: null,
        orphaned: ORPHANING.has(refusal),
      };
    }
    order!.status = "paid";
    this.#paid.push(message);
    return { message, status: "succeeded", userId, duplicateOf: null, orphaned: false };
  }

  #refusal(message: ProviderPaymentMessage, order: LockedOrder | undefined): FailureReason | null {
    if (order === undefined) return "order_not_found";
    if (PAID_STATUSES.has(order.status)) return "order_already_paid";
    if (order.status !== "awaiting_payment") return "order_not_payable";
    if (order.amount !== message.amount) return "amount_mismatch";
    return null;
  }

  /** The orders paid in this transaction, with the payment that paid each. */
  get paid(): readonly ProviderPaymentMessage[] {
    return this.#paid;
  }

  /** Every order the batch's provider payments name that is paid once it commits (settling is idempotent). */
  paidOrders(): PaidOrder[] {
    return [...this.#orders]
      .filter(([, order]) => order.status === "paid")
      .map(([orderId, order]) => ({
        orderId,
        userId: order.userId,
        items: order.items,
        session: order.session,
      }));
  }
}
