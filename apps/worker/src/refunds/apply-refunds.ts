// Refunds of one shard's batch, inside that batch's transaction, after the payments (a payment and its refund
// in one batch: the payment is on the shard by now). Exactly once, as for payments: the refund's id is the
// refunds table's primary key, looked up after the payment rows are locked, so a concurrent apply of the same
// id has committed by then and is seen; an insert that still conflicts aborts the batch (retried).
// "Never more than was paid" is decided under the payment's row lock (FOR UPDATE, payments in id order), and
// the conditional update and payments_refunded_check stand behind it. The wallet is credited in the same
// transaction. A refund of an order's payment moves the order to refunded / partially_refunded; with restock,
// the order is returned as an EndedOrder, and lane-batch.ts gives its units back through the ledger and
// release-order-n.lua like an expired order's: once, whatever is redelivered. (An order's Redis state lives
// ORDER_TTL_SECONDS + 7 days: a restock after that returns the units in Postgres only, and reconcile raises
// Redis' available to match.) Locks: payments, then their wallets; a batch whose payments and deposits locked
// wallets first can meet another worker's refunds in the opposite order, and Postgres' deadlock error is a
// retryable store failure (the lane retries the group).
import type { ShardDatabase } from "@floodgate/db";
import {
  type FailureReason,
  type OperationMessage,
  parseOperationId,
  type RefundMessage,
} from "@floodgate/domain";
import type { FinalStatus } from "@floodgate/queue";
import { sql, type Transaction } from "kysely";
import { ConcurrentApplyError } from "../classify-error.ts";
import type { EndedOrder } from "../orders/order-outcomes.ts";
import { CLOCK_SKEW_MS, ORDER_IN_FLIGHT_MS } from "../orders/pay-orders.ts";
import type { ShardBatchResult } from "../shard-batch-result.ts";
import { type LockedPayment, RefundLedger } from "./refund-ledger.ts";

export interface RefundDecision {
  message: RefundMessage;
  status: FinalStatus["status"];
  failureReason?: FailureReason;
  /** The payment's user (null: the payment is not on the shard) and what was given back: for the event. */
  userId: string | null;
  amount: number | null;
}

export interface RefundsApplied {
  decisions: RefundDecision[];
  /** Refunds already on the shard (redeliveries): their recorded outcome. */
  existing: {
    id: string;
    status: FinalStatus["status"];
    failure_reason: FailureReason | null;
    completed_at: Date;
  }[];
  /** Orders whose units go back to stock (now, or again for a redelivery: the release is idempotent). */
  restocked: EndedOrder[];
  /** Refunds left out to wait for their payment: not applied, not final. */
  awaiting: RefundMessage[];
  statements: number;
}

export const noRefunds = (): RefundsApplied => ({
  decisions: [],
  existing: [],
  restocked: [],
  awaiting: [],
  statements: 0,
});

/** A payment id accepted within the in-flight window (and not in the future): it may still reach its shard. */
function mayStillBeRecorded(paymentId: string, nowMs = Date.now()): boolean {
  const parsed = parseOperationId(paymentId);
  if (parsed === null) return false;
  const age = nowMs - parsed.createdAtMs;
  return age > -CLOCK_SKEW_MS && age < ORDER_IN_FLIGHT_MS;
}

/**
 * The batch's refunds (its other messages are left alone). A refund whose payment is not on the shard yet but
 * was accepted moments ago (another worker's batch is applying it, as a payment can outrun its order) is left
 * out to wait for it when `mayAwaitPayment`, like such a payment (awaiting-order-book.ts); otherwise, or once
 * the payment is too old to be on its way, it fails payment_not_found.
 */
export async function applyRefunds(
  trx: Transaction<ShardDatabase>,
  batch: OperationMessage[],
  mayAwaitPayment = true,
): Promise<RefundsApplied> {
  const messages = batch.filter((m): m is RefundMessage => m.kind === "refund");
  if (messages.length === 0) return noRefunds();
  const paymentIds = [...new Set(messages.map((m) => m.paymentId))].sort();
  const locked = await sql<LockedPayment>`
    select id, user_id, amount::bigint as amount, refunded::bigint as refunded, status, order_id from payments
    where id = any(${paymentIds}::text[]) order by id for update`.execute(trx);
  let statements = 1;
  // After the lock: a concurrent apply of the same refunds has committed by now, and this statement sees it.
  const found = await sql<RefundsApplied["existing"][number] & { restock: boolean; payment_id: string }>`
    select id, status, failure_reason, completed_at, restock, payment_id from refunds
    where id = any(${messages.map((m) => m.id)}::text[])`.execute(trx);
  statements += 1;
  const done = new Set(found.rows.map((row) => row.id));
  const ledger = new RefundLedger(locked.rows);
  const decisions: RefundDecision[] = [];
  const awaiting: RefundMessage[] = [];
  for (const message of messages) {
    if (done.has(message.id)) continue;
    done.add(message.id);
    if (mayAwaitPayment && !ledger.holds(message.paymentId) && mayStillBeRecorded(message.paymentId)) {
      awaiting.push(message); // nothing written for it: retried shortly by its worker
      continue;
    }
    const refusal = ledger.refund(message);
    const facts = { userId: ledger.userOf(message), amount: ledger.amountOf(message) };
    decisions.push(
      refusal
        ? { message, status: "failed", failureReason: refusal, ...facts }
        : { message, status: "succeeded", ...facts },
    );
  }

  if (decisions.length > 0) {
    const inserted = await sql`
      insert into refunds (id, payment_id, user_id, amount, currency, reason, restock, status, failure_reason, created_at, completed_at)
      select id, payment_id, user_id, amount, currency, reason, restock, status, failure_reason, to_timestamp(created_ms / 1000.0), clock_timestamp()
      from unnest(${decisions.map((d) => d.message.id)}::text[], ${decisions.map((d) => d.message.paymentId)}::text[],
                  ${decisions.map((d) => ledger.userOf(d.message))}::text[], ${decisions.map((d) => ledger.amountOf(d.message))}::bigint[],
                  ${decisions.map((d) => d.message.currency)}::text[], ${decisions.map((d) => d.message.reason ?? null)}::text[],
                  ${decisions.map((d) => d.message.restock ?? false)}::boolean[], ${decisions.map((d) => d.status)}::text[],
                  ${decisions.map((d) => d.failureReason ?? null)}::text[], ${decisions.map((d) => d.message.createdAt)}::float8[])
        as v(id, payment_id, user_id, amount, currency, reason, restock, status, failure_reason, created_ms)
      on conflict (id) do nothing`.execute(trx);
    statements += 1;
    if (Number(inserted.numAffectedRows ?? 0) !== decisions.length) {
      throw new ConcurrentApplyError(
        `${decisions.length - Number(inserted.numAffectedRows ?? 0)} refund ids already present`,
      );
    }
  }
  statements += await writeMoney(trx, ledger);
  const orders = await writeOrders(trx, ledger, found.rows);
  return {
    decisions,
    existing: found.rows,
    restocked: orders.restocked,
    awaiting,
    statements: statements + orders.statements,
  };
}

/** Payments' refunded totals and wallets, by delta and conditionally: a wrong sum aborts, never overpays. */
async function writeMoney(trx: Transaction<ShardDatabase>, ledger: RefundLedger): Promise<number> {
  const payments = ledger.paymentDeltas();
  if (payments.length === 0) return 0;
  const updated = await sql`
    update payments p set refunded = p.refunded + v.delta
    from unnest(${payments.map((p) => p.id)}::text[], ${payments.map((p) => p.delta)}::bigint[]) as v(id, delta)
    where p.id = v.id and p.refunded + v.delta <= p.amount`.execute(trx);
  if (Number(updated.numAffectedRows ?? 0) !== payments.length) {
    throw new ConcurrentApplyError("a payment's refunded total changed under its lock");
  }
  // Users in order, as the payments' wallet lock takes them. The wallet exists (its payment debited it).
  const wallets = ledger.walletDeltas();
  const credited = await sql`
    update wallets w set balance = w.balance + v.delta, updated_at = now()
    from unnest(${wallets.map(([user]) => user)}::text[], ${wallets.map(([, delta]) => delta)}::bigint[]) as v(user_id, delta)
    where w.user_id = v.user_id`.execute(trx);
  if (Number(credited.numAffectedRows ?? 0) !== wallets.length) {
    throw new ConcurrentApplyError("a refunded payment's wallet is missing");
  }
  return 2;
}

/**
 * Orders of refunded payments: their new status, and with restock their units (also for a redelivered restock,
 * whose release the first delivery may not have finished).
 */
async function writeOrders(
  trx: Transaction<ShardDatabase>,
  ledger: RefundLedger,
  redelivered: { restock: boolean; payment_id: string; status: string }[],
) {
  let statements = 0;
  const changes = ledger.orderChanges();
  if (changes.length > 0) {
    await sql`
      update orders o set status = v.status, restocked = o.restocked or v.restock, updated_at = now()
      from unnest(${changes.map((c) => c.orderId)}::text[], ${changes.map((c) => c.status)}::text[],
                  ${changes.map((c) => c.restock)}::boolean[]) as v(id, status, restock)
      where o.id = v.id and o.status in ('paid', 'partially_refunded')`.execute(trx);
    statements += 1;
  }
  const restockOrders = [
    ...changes.filter((c) => c.restock).map((c) => c.orderId),
    ...redelivered
      .filter((row) => row.restock && row.status === "succeeded")
      .map((row) => ledger.orderOf(row.payment_id))
      .filter((id): id is string => id !== null),
  ];
  if (restockOrders.length === 0) return { restocked: [], statements };
  const rows = await sql<{ id: string; user_id: string; product_id: string; quantity: number }>`
    select o.id, o.user_id, i.product_id, i.quantity from orders o join order_items i on i.order_id = o.id
    where o.id = any(${restockOrders}::text[]) and o.restocked order by o.id, i.line`.execute(trx);
  statements += 1;
  const byOrder = new Map<string, EndedOrder>();
  for (const row of rows.rows) {
    let order = byOrder.get(row.id);
    if (!order) {
      // No coupon: a refund leaves the coupon redeemed (issued_coupons keeps it used), so Redis keeps it too.
      order = { orderId: row.id, userId: row.user_id, items: [], couponIssueId: null, status: "refunded" };
      byOrder.set(row.id, order);
    }
    order.items.push({ productId: row.product_id, quantity: row.quantity });
  }
  return { restocked: [...byOrder.values()], statements };
}

/** The batch's result with its refunds' statuses, restocks and statements added. */
export function withRefunds(refunds: RefundsApplied, result: ShardBatchResult): ShardBatchResult {
  const completedAt = Date.now();
  return {
    ...result,
    statuses: [
      ...result.statuses,
      ...refunds.decisions.map((d) => ({
        id: d.message.id,
        status: d.status,
        completedAt,
        ...(d.failureReason ? { failureReason: d.failureReason } : {}),
      })),
      ...refunds.existing.map((row) => ({
        id: row.id,
        status: row.status,
        completedAt: new Date(row.completed_at).getTime(),
        ...(row.failure_reason ? { failureReason: row.failure_reason } : {}),
      })),
    ],
    applied: [...result.applied, ...refunds.decisions.map((d) => ({ message: d.message, status: d.status }))],
    redelivered: result.redelivered + refunds.existing.length,
    statements: result.statements + refunds.statements,
    awaitingOrder: [...result.awaitingOrder, ...refunds.awaiting],
    orders: { ...result.orders, ended: [...result.orders.ended, ...refunds.restocked] },
  };
}
