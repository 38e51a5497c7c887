// A payment that names an order pays it in the same shard transaction as the debit (the order and the
// wallet belong to the same user, so to the same shard). The order rows are locked first; a payment is
// refused (no debit) for an order that is not the payer's, no longer awaits payment, or costs another amount.
import type { ShardDatabase } from "@floodgate/db";
import {
  type FailureReason,
  type MoneyOperationMessage,
  type OrderLine,
  type OrderSession,
  parseOperationId,
} from "@floodgate/domain";
import type { PaidOrder } from "@floodgate/reservations";
import { bucketForUser } from "@floodgate/shard-router";
import { sql, type Transaction } from "kysely";
import { type OrderSessionColumns, orderSessionOf } from "./order-session.ts";

/**
 * How long after an order was accepted a payment naming it, not finding it on the shard, waits for it instead of
 * failing order_not_found. Two workers read one partition, each its own entries: a client that pays on the
 * order's 202 can have its payment applied by one worker while the other is still applying the order. A waiting
 * payment is left out of its batch (not acknowledged) and retried by its worker shortly after.
 */
export const ORDER_IN_FLIGHT_MS = 60_000;

/** Clocks of intake and worker processes may disagree by this much; an id dated further ahead is made up. */
export const CLOCK_SKEW_MS = 5_000;

/**
 * Whether an order missing from the payer's shard may still arrive: its id is an order id minted for the payer's
 * bucket (ids carry their user's bucket: another user's order lives elsewhere and never will) within
 * ORDER_IN_FLIGHT_MS, and not in the future (no real order is; a made-up one must not wait forever).
 */
export function mayStillBeRecorded(orderId: string, payerId: string, nowMs = Date.now()): boolean {
  const parsed = parseOperationId(orderId);
  if (parsed === null || parsed.kind !== "order" || parsed.bucket !== bucketForUser(payerId)) return false;
  const age = nowMs - parsed.createdAtMs;
  return age > -CLOCK_SKEW_MS && age < ORDER_IN_FLIGHT_MS;
}

interface PayableOrder {
  userId: string;
  status: string;
  amount: number;
  items: Pick<OrderLine, "productId" | "quantity">[];
  session: OrderSession | null;
}

export class OrderPayments {
  readonly #orders: Map<string, PayableOrder>;
  readonly #paid: { orderId: string; paymentId: string }[] = [];

  private constructor(orders: Map<string, PayableOrder>) {
    this.#orders = orders;
  }

  /**
   * Locks the orders the payments name (in id order, so two workers cannot deadlock), with their lines: a paid
   * order's units stop counting against its user's cap (paidOrders), in the same statement.
   */
  static async lock(trx: Transaction<ShardDatabase>, payments: MoneyOperationMessage[]) {
    const ids = [...new Set(payments.flatMap((m) => (m.orderId ? [m.orderId] : [])))].sort();
    if (ids.length === 0) return { orders: new OrderPayments(new Map()), statements: 0 };
    const rows = await sql<
      {
        id: string;
        user_id: string;
        status: string;
        amount: number;
        product_id: string | null;
        quantity: number | null;
      } & OrderSessionColumns
    >`
      select o.id, o.user_id, o.status, o.amount, i.product_id, i.quantity, o.session_room_id, o.session_ticket_id
      from orders o left join order_items i on i.order_id = o.id
      where o.id = any(${ids}::text[]) order by o.id, i.line for update of o`.execute(trx);
    const orders = new Map<string, PayableOrder>();
    for (const row of rows.rows) {
      let order = orders.get(row.id);
      if (!order) {
        order = {
          userId: row.user_id,
          status: row.status,
          amount: row.amount,
          items: [],
          session: orderSessionOf(row),
        };
        orders.set(row.id, order);
      }
      if (row.product_id !== null) order.items.push({ productId: row.product_id, quantity: row.quantity! });
    }
    return { orders: new OrderPayments(orders), statements: 1 };
  }

  /** Whether this payment names an order that is not on the shard yet but may still arrive: it waits. */
  awaitsOrder(payment: MoneyOperationMessage): boolean {
    return (
      payment.orderId !== undefined &&
      !this.#orders.has(payment.orderId) &&
      mayStillBeRecorded(payment.orderId, payment.userId)
    );
  }

  /** Why this payment cannot pay its order, or null when it can (or names no order). */
  refusal(payment: MoneyOperationMessage): FailureReason | null {
    if (payment.orderId === undefined) return null;
    const order = this.#orders.get(payment.orderId);
    if (!order || order.userId !== payment.userId) return "order_not_found";
    if (order.status !== "awaiting_payment") return "order_not_payable";
    if (order.amount !== payment.amount) return "amount_mismatch";
    return null;
  }

  /** Records a successful payment: a later payment of the same order in this batch is refused. */
  markPaid(payment: MoneyOperationMessage) {
    if (payment.orderId === undefined) return;
    this.#orders.get(payment.orderId)!.status = "paid";
    this.#paid.push({ orderId: payment.orderId, paymentId: payment.id });
  }

  get paidCount() {
    return this.#paid.length;
  }

  /**
   * Every order the payments name that is paid once this batch commits: paid now, or before (a redelivered batch
   * whose settlement may not have reached Redis, or a second payment of a paid order). Settling is idempotent.
   */
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

  /** Writes the paid statuses; returns the statements sent. */
  async write(trx: Transaction<ShardDatabase>): Promise<number> {
    if (this.#paid.length === 0) return 0;
    const updated = await sql`
      update orders o set status = 'paid', payment_id = v.payment_id, updated_at = now()
      from unnest(${this.#paid.map((p) => p.orderId)}::text[], ${this.#paid.map((p) => p.paymentId)}::text[])
        as v(id, payment_id)
      where o.id = v.id and o.status = 'awaiting_payment'`.execute(trx);
    if (Number(updated.numAffectedRows ?? 0) !== this.#paid.length) {
      throw new Error("an order changed under its lock");
    }
    return 1;
  }
}
