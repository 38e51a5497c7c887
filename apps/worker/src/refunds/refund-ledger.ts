// The decisions of one batch's refunds against the payments they name, locked: what each payment has left to
// give back moves as the batch's refunds are decided in stream order, so two refunds of one payment in one
// batch cannot both take its last units of money.
import type { FailureReason, RefundMessage } from "@floodgate/domain";

export interface LockedPayment {
  id: string;
  user_id: string;
  amount: string | number;
  refunded: string | number;
  status: "succeeded" | "failed";
  order_id: string | null;
}

interface PaymentState {
  row: LockedPayment;
  amount: number;
  refunded: number;
  /** Refunded by this batch. */
  delta: number;
  restock: boolean;
}

export class RefundLedger {
  readonly #payments: Map<string, PaymentState>;
  /** What each succeeded refund gave back; what each refused one asked (a full one asks for no amount). */
  readonly #amounts = new Map<string, number | null>();

  constructor(rows: LockedPayment[]) {
    this.#payments = new Map(
      rows.map((row) => [
        row.id,
        { row, amount: Number(row.amount), refunded: Number(row.refunded), delta: 0, restock: false },
      ]),
    );
  }

  /** Decides one refund: null when it succeeds (and is counted), else why it fails. */
  refund(message: RefundMessage): FailureReason | null {
    this.#amounts.set(message.id, message.amount ?? null);
    const payment = this.#payments.get(message.paymentId);
    if (!payment) return "payment_not_found";
    if (payment.row.status !== "succeeded") return "payment_not_succeeded";
    const left = payment.amount - payment.refunded;
    const amount = message.amount ?? left;
    if (amount <= 0 || amount > left) return "refund_exceeds_payment";
    // Restock only with the refund that makes the order's payment fully refunded: a partial refund cannot say
    // which units it is for.
    if (message.restock === true && (payment.row.order_id === null || amount !== left)) {
      return "restock_not_possible";
    }
    payment.refunded += amount;
    payment.delta += amount;
    if (message.restock === true) payment.restock = true;
    this.#amounts.set(message.id, amount);
    return null;
  }

  holds(paymentId: string): boolean {
    return this.#payments.has(paymentId);
  }

  userOf(message: RefundMessage): string | null {
    return this.#payments.get(message.paymentId)?.row.user_id ?? null;
  }

  amountOf(message: RefundMessage): number | null {
    return this.#amounts.get(message.id) ?? null;
  }

  orderOf(paymentId: string): string | null {
    return this.#payments.get(paymentId)?.row.order_id ?? null;
  }

  paymentDeltas(): { id: string; delta: number }[] {
    return [...this.#payments.values()]
      .filter((p) => p.delta > 0)
      .map((p) => ({ id: p.row.id, delta: p.delta }));
  }

  /** Per user, in user order. */
  walletDeltas(): [string, number][] {
    const deltas = new Map<string, number>();
    for (const p of this.#payments.values()) {
      if (p.delta > 0) deltas.set(p.row.user_id, (deltas.get(p.row.user_id) ?? 0) + p.delta);
    }
    return [...deltas].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  orderChanges(): { orderId: string; status: "refunded" | "partially_refunded"; restock: boolean }[] {
    return [...this.#payments.values()]
      .filter((p) => p.delta > 0 && p.row.order_id !== null)
      .map((p) => ({
        orderId: p.row.order_id!,
        status: p.refunded === p.amount ? "refunded" : "partially_refunded",
        restock: p.restock,
      }));
  }
}
