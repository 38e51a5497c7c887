// Provider payments of one shard's batch, inside that batch's transaction, after the wallet payments and before
// the order ends (apply-shard-batch.ts): the order's row lock decides between a provider payment and the
// order's expiry or cancel, so each order ends paid or ended, never both. Exactly once, as for payments: the
// id is the table's primary key, looked up after the orders are locked, so a concurrent apply of the same id
// has committed by then and is seen; an insert that still conflicts aborts the batch (retried). No wallet is
// read or written.
import type { ShardDatabase } from "@floodgate/db";
import {
  type FailureReason,
  type OperationMessage,
  type ProviderPaymentMessage,
  parseOperationId,
} from "@floodgate/domain";
import type { FinalStatus } from "@floodgate/queue";
import type { PaidOrder } from "@floodgate/reservations";
import { sql, type Transaction } from "kysely";
import { ConcurrentApplyError } from "../classify-error.ts";
import { type OrderSessionColumns, orderSessionOf } from "../orders/order-session.ts";
import { CLOCK_SKEW_MS, ORDER_IN_FLIGHT_MS } from "../orders/pay-orders.ts";
import type { ShardBatchResult } from "../shard-batch-result.ts";
import {
  type LockedOrder,
  type OriginalPayment,
  type ProviderPaymentDecision,
  ProviderPaymentLedger,
  pairKey,
} from "./provider-payment-ledger.ts";

export interface ProviderPaymentsApplied {
  decisions: ProviderPaymentDecision[];
  /** Already on the shard (redeliveries): their recorded outcome. */
  existing: {
    id: string;
    status: FinalStatus["status"];
    failure_reason: FailureReason | null;
    completed_at: Date;
  }[];
  /** Orders the batch's provider payments name that are paid: their unpaid units are settled. */
  paidOrders: PaidOrder[];
  /** Left out to wait for their order (placed moments ago, applied by another worker): not applied, not final. */
  awaiting: ProviderPaymentMessage[];
  statements: number;
}

export const noProviderPayments = (): ProviderPaymentsApplied => ({
  decisions: [],
  existing: [],
  paidOrders: [],
  awaiting: [],
  statements: 0,
});

/** An order id accepted within the in-flight window (and not in the future): it may still reach its shard. */
function orderMayStillBeRecorded(orderId: string, nowMs = Date.now()): boolean {
  const parsed = parseOperationId(orderId);
  if (parsed === null) return false;
  const age = nowMs - parsed.createdAtMs;
  return age > -CLOCK_SKEW_MS && age < ORDER_IN_FLIGHT_MS;
}

export async function applyProviderPayments(
  trx: Transaction<ShardDatabase>,
  batch: OperationMessage[],
  mayAwaitOrder = true,
): Promise<ProviderPaymentsApplied> {
  const messages = batch.filter((m): m is ProviderPaymentMessage => m.kind === "provider_payment");
  if (messages.length === 0) return noProviderPayments();
  const orders = await lockOrders(trx, messages);
  // After the lock: a concurrent apply of the same ids has committed by now, and these statements see it.
  const found = await sql<ProviderPaymentsApplied["existing"][number]>`
    select id, status, failure_reason, completed_at from provider_payments
    where id = any(${messages.map((m) => m.id)}::text[])`.execute(trx);
  const originals = await findOriginals(trx, messages);
  let statements = 3;
  const done = new Set(found.rows.map((row) => row.id));
  const ledger = new ProviderPaymentLedger(orders, originals);
  const decisions: ProviderPaymentDecision[] = [];
  const awaiting: ProviderPaymentMessage[] = [];
  for (const message of messages) {
    if (done.has(message.id)) continue;
    done.add(message.id);
    if (mayAwaitOrder && !ledger.holdsOrder(message.orderId) && orderMayStillBeRecorded(message.orderId)) {
      awaiting.push(message); // nothing written for it: retried shortly by its worker
      continue;
    }
    decisions.push(ledger.decide(message));
  }
  if (decisions.length > 0) {
    await insertRows(trx, decisions);
    statements += 1;
  }
  statements += await markPaid(trx, ledger.paid);
  return { decisions, existing: found.rows, paidOrders: ledger.paidOrders(), awaiting, statements };
}

/** The orders the payments name, locked in id order (as the wallet payments lock them), with their lines. */
async function lockOrders(trx: Transaction<ShardDatabase>, messages: ProviderPaymentMessage[]) {
  const ids = [...new Set(messages.map((m) => m.orderId))].sort();
  const rows = await sql<
    {
      id: string;
      user_id: string;
      status: string;
      amount: string;
      product_id: string | null;
      quantity: number | null;
    } & OrderSessionColumns
  >`
    select o.id, o.user_id, o.status, o.amount, i.product_id, i.quantity, o.session_room_id, o.session_ticket_id
    from orders o left join order_items i on i.order_id = o.id
    where o.id = any(${ids}::text[]) order by o.id, i.line for update of o`.execute(trx);
  const orders = new Map<string, LockedOrder>();
  for (const row of rows.rows) {
    let order = orders.get(row.id);
    if (!order) {
      order = {
        userId: row.user_id,
        status: row.status,
        amount: Number(row.amount),
        items: [],
        session: orderSessionOf(row),
      };
      orders.set(row.id, order);
    }
    if (row.product_id !== null) order.items.push({ productId: row.product_id, quantity: row.quantity! });
  }
  return orders;
}

/** The first payment recorded for each (provider, reference) of the batch. */
async function findOriginals(trx: Transaction<ShardDatabase>, messages: ProviderPaymentMessage[]) {
  const found = await sql<OriginalPayment & { provider: string; reference: string }>`
    select p.id, p.order_id as "orderId", p.status, p.failure_reason as "failureReason", p.provider, p.reference
    from provider_payments p
    join unnest(${messages.map((m) => m.provider)}::text[], ${messages.map((m) => m.reference)}::text[])
      as v(provider, reference) on p.provider = v.provider and p.reference = v.reference
    where p.duplicate_of is null`.execute(trx);
  return new Map(found.rows.map((row) => [pairKey(row.provider, row.reference), row]));
}

async function insertRows(trx: Transaction<ShardDatabase>, decisions: ProviderPaymentDecision[]) {
  const inserted = await sql`
    insert into provider_payments
      (id, order_id, user_id, provider, reference, amount, currency, status, failure_reason, duplicate_of, created_at, completed_at)
    select id, order_id, user_id, provider, reference, amount, currency, status, failure_reason, duplicate_of,
           to_timestamp(created_ms / 1000.0), clock_timestamp()
    from unnest(${decisions.map((d) => d.message.id)}::text[], ${decisions.map((d) => d.message.orderId)}::text[],
                ${decisions.map((d) => d.userId)}::text[], ${decisions.map((d) => d.message.provider)}::text[],
                ${decisions.map((d) => d.message.reference)}::text[], ${decisions.map((d) => d.message.amount)}::bigint[],
                ${decisions.map((d) => d.message.currency)}::text[], ${decisions.map((d) => d.status)}::text[],
                ${decisions.map((d) => d.failureReason ?? null)}::text[], ${decisions.map((d) => d.duplicateOf)}::text[],
                ${decisions.map((d) => d.message.createdAt)}::float8[])
      as v(id, order_id, user_id, provider, reference, amount, currency, status, failure_reason, duplicate_of, created_ms)
    on conflict (id) do nothing`.execute(trx);
  if (Number(inserted.numAffectedRows ?? 0) !== decisions.length) {
    throw new ConcurrentApplyError(
      `${decisions.length - Number(inserted.numAffectedRows ?? 0)} provider payment ids already present`,
    );
  }
}

/** The orders paid now: status, the paying id and the provider's reference, only if still awaiting payment. */
async function markPaid(trx: Transaction<ShardDatabase>, paid: readonly ProviderPaymentMessage[]) {
  if (paid.length === 0) return 0;
  const updated = await sql`
    update orders o set status = 'paid', payment_id = v.payment_id, provider = v.provider,
                        provider_reference = v.reference, updated_at = now()
    from unnest(${paid.map((m) => m.orderId)}::text[], ${paid.map((m) => m.id)}::text[],
                ${paid.map((m) => m.provider)}::text[], ${paid.map((m) => m.reference)}::text[])
      as v(id, payment_id, provider, reference)
    where o.id = v.id and o.status = 'awaiting_payment'`.execute(trx);
  if (Number(updated.numAffectedRows ?? 0) !== paid.length) {
    throw new ConcurrentApplyError("an order changed under its lock");
  }
  return 1;
}

/** The batch's result with its provider payments' statuses, paid orders and statements added. */
export function withProviderPayments(
  applied: ProviderPaymentsApplied,
  result: ShardBatchResult,
): ShardBatchResult {
  const completedAt = Date.now();
  return {
    ...result,
    statuses: [
      ...result.statuses,
      ...applied.decisions.map((d) => ({
        id: d.message.id,
        status: d.status,
        completedAt,
        ...(d.failureReason ? { failureReason: d.failureReason } : {}),
      })),
      ...applied.existing.map((row) => ({
        id: row.id,
        status: row.status,
        completedAt: new Date(row.completed_at).getTime(),
        ...(row.failure_reason ? { failureReason: row.failure_reason } : {}),
      })),
    ],
    applied: [...result.applied, ...applied.decisions.map((d) => ({ message: d.message, status: d.status }))],
    redelivered: result.redelivered + applied.existing.length,
    statements: result.statements + applied.statements,
    awaitingOrder: [...result.awaitingOrder, ...applied.awaiting],
    orders: {
      ...result.orders,
      paid:
        result.orders.paid +
        applied.decisions.filter((d) => d.status === "succeeded" && !d.duplicateOf).length,
      paidOrders: [...result.orders.paidOrders, ...applied.paidOrders],
    },
  };
}
