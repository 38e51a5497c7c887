// One transaction per shard per batch. Exactly once comes from the primary keys: an operation id already in
// the shard is a redelivery and is reported, not applied. Wallet rows are locked (in user order, so two
// workers cannot deadlock) before the batch looks for existing ids, so a concurrent apply of the same id is
// seen; and an insert that still finds a conflict aborts the whole transaction.
// Coupon issues (apply-coupon-issues.ts), orders (orders/apply-orders.ts) and order ends share the
// transaction, in that order, before and after the money: an order placed and paid in one batch is recorded
// before its payment, and a payment queued before a cancel is applied before it.

import type { ShardDatabase } from "@floodgate/db";
import type {
  CouponIssueMessage,
  FailureReason,
  MoneyOperationMessage,
  OperationMessage,
  OrderCancelMessage,
  OrderMessage,
  RefundMessage,
} from "@floodgate/domain";
import type { FinalStatus, PaidOrder } from "@floodgate/queue";
import { type Kysely, sql, type Transaction } from "kysely";
import { applyCouponIssues } from "./apply-coupon-issues.ts";
import { FENCE_STATEMENTS, fenceBuckets } from "./bucket-fence.ts";
import { ConcurrentApplyError } from "./classify-error.ts";
import { applyOrderEnds } from "./orders/apply-order-ends.ts";
import { applyOrders } from "./orders/apply-orders.ts";
import type { OrderOutcomes } from "./orders/order-outcomes.ts";
import { OrderPayments } from "./orders/pay-orders.ts";
import { applyRefunds, withRefunds } from "./refunds/apply-refunds.ts";
import { type SubscribedTypes, writeWebhookOutbox } from "./webhooks/outbox-writer.ts";

export interface ShardBatchResult {
  statuses: FinalStatus[];
  /**
   * Payments and end requests left out because their order is not on the shard yet (pay-orders.ts,
   * apply-order-ends.ts): not applied, not final.
   */
  awaitingOrder: (MoneyOperationMessage | OrderCancelMessage | RefundMessage)[];
  /** Newly applied in this transaction (redeliveries excluded). */
  applied: { message: OperationMessage; status: FinalStatus["status"] }[];
  redelivered: number;
  statements: number;
  orders: OrderOutcomes & {
    paid: number;
    /** Orders the batch's payments name that are paid (now or before): their unpaid units are settled. */
    paidOrders: PaidOrder[];
    endedNow: { orderId: string; status: "cancelled" | "expired" }[];
    /** Statements spent on orders and their ends (BEGIN/COMMIT are shared with the batch). */
    statements: number;
  };
}

interface MoneyDecision {
  message: MoneyOperationMessage;
  status: FinalStatus["status"];
  failureReason?: FailureReason;
}

interface ExistingRow {
  id: string;
  status: FinalStatus["status"];
  failure_reason: FailureReason | null;
  completed_at: Date;
}

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
  const money = messages.filter(
    (m): m is MoneyOperationMessage => m.kind === "payment" || m.kind === "deposit",
  );
  const coupons = messages.filter((m): m is CouponIssueMessage => m.kind === "coupon_issue");
  const orders = messages.filter((m): m is OrderMessage => m.kind === "order");
  const ends = messages.filter((m): m is OrderCancelMessage => m.kind === "order_cancel");
  const result = await db.transaction().execute(async (trx) => {
    if (options.buckets !== undefined) await fenceBuckets(trx, options.buckets);
    const couponPart =
      coupons.length > 0
        ? await applyCouponIssues(trx, coupons)
        : { decisions: [], redelivered: [], statements: 0 };
    const orderPart =
      orders.length > 0
        ? await applyOrders(trx, orders)
        : { decisions: [], redelivered: [], ended: [], awaiting: [], statements: 0 };
    const moneyPart =
      money.length > 0
        ? await applyMoneyOperations(trx, money, money.filter(mayBeApplied), options.mayAwaitOrder ?? true)
        : { decisions: [], existing: [], statements: 0, paid: 0, paidOrders: [], awaitingOrder: [] };
    const endPart =
      ends.length > 0
        ? await applyOrderEnds(trx, ends, options.mayAwaitOrder ?? true)
        : { endedNow: [], ended: [], awaiting: [], statements: 0 };
    // Refunds last: a payment and its refund in one batch find the payment on the shard.
    const refundPart = await applyRefunds(trx, messages, options.mayAwaitOrder ?? true);
    // The events of what became final, committed with it (the one webhook call of the batch).
    const outboxStatements = await writeWebhookOutbox(
      trx,
      {
        decisions: [
          ...moneyPart.decisions,
          ...couponPart.decisions,
          ...orderPart.decisions,
          // A refund message names no user: the event carries the payment's, and the amount given back.
          ...refundPart.decisions.map((d) => ({
            ...d,
            message: { ...d.message, userId: d.userId ?? "", amount: d.amount ?? d.message.amount },
          })),
        ],
        endedOrders: endPart.endedNow,
      },
      options.webhookEvents ?? NO_WEBHOOK_EVENTS,
    );
    return { moneyPart, couponPart, orderPart, endPart, refundPart, outboxStatements };
  });
  const { moneyPart, couponPart, orderPart, endPart, refundPart, outboxStatements } = result;
  const awaitingEnds = new Set<OperationMessage>(endPart.awaiting);
  const decisions = [
    ...moneyPart.decisions,
    ...couponPart.decisions,
    ...orderPart.decisions,
    // An end request "succeeds" once the shard has decided, whether or not the order could still end.
    ...ends
      .filter((message) => !awaitingEnds.has(message))
      .map((message) => ({ message, status: "succeeded" as const, failureReason: undefined })),
  ];
  const existing: ExistingRow[] = [
    ...moneyPart.existing,
    ...couponPart.redelivered.map((row) => ({
      id: row.id,
      status: "succeeded" as const,
      failure_reason: null,
      completed_at: new Date(row.completedAt),
    })),
    ...orderPart.redelivered.map((row) => ({
      id: row.id,
      status: row.status,
      failure_reason: row.failureReason ?? null,
      completed_at: new Date(row.completedAt),
    })),
  ];
  // + BEGIN, COMMIT, and the bucket fence's
  const statements =
    2 +
    (options.buckets !== undefined ? FENCE_STATEMENTS : 0) +
    moneyPart.statements +
    couponPart.statements +
    orderPart.statements +
    endPart.statements +
    outboxStatements;
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
  return withRefunds(refundPart, {
    statuses,
    awaitingOrder: [...moneyPart.awaitingOrder, ...endPart.awaiting],
    applied: decisions.map((d) => ({ message: d.message, status: d.status })),
    redelivered: existing.length,
    statements,
    orders: {
      ended: [...orderPart.ended, ...endPart.ended],
      awaiting: orderPart.awaiting,
      paid: moneyPart.paid,
      paidOrders: moneyPart.paidOrders,
      endedNow: endPart.endedNow,
      statements: orderPart.statements + endPart.statements,
    },
  });
}

/**
 * Payments and deposits: wallets locked in user order, ids already present skipped, balances by delta.
 * `suspects` are the messages that may already be on the shard; only they are looked up (per row, the look-up
 * costs Postgres about as much as the insert, and a first delivery cannot have been applied).
 */
async function applyMoneyOperations(
  trx: Transaction<ShardDatabase>,
  messages: MoneyOperationMessage[],
  suspects: MoneyOperationMessage[],
  mayAwaitOrder: boolean,
) {
  const users = [...new Set(messages.map((m) => m.userId))].sort();
  let statements = 0;
  // Only a deposit needs its wallet to exist: a payment from a user without one fails (insufficient funds).
  const depositors = [...new Set(messages.filter((m) => m.kind === "deposit").map((m) => m.userId))].sort();
  if (depositors.length > 0) {
    await sql`insert into wallets (user_id) select u from unnest(${depositors}::text[]) as u order by u
              on conflict (user_id) do nothing`.execute(trx);
    statements += 1;
  }
  const locked = await sql<{ user_id: string; balance: number }>`
    select user_id, balance from wallets where user_id = any(${users}::text[]) order by user_id for update`.execute(
    trx,
  );
  statements += 1;
  // After the lock: a concurrent apply of the same ids has committed by now, and this statement sees it.
  const existing = suspects.length > 0 ? await findApplied(trx, suspects) : [];
  if (suspects.length > 0) statements += 1;
  const orderLock = await OrderPayments.lock(trx, messages);
  const payable = orderLock.orders;
  statements += orderLock.statements;

  const balance = new Map(locked.rows.map((row) => [row.user_id, row.balance]));
  const done = new Map(existing.map((row) => [row.id, row]));
  const decisions: MoneyDecision[] = [];
  const awaitingOrder: MoneyOperationMessage[] = [];
  const seen = new Set<string>();
  for (const message of messages) {
    if (done.has(message.id) || seen.has(message.id)) continue;
    seen.add(message.id);
    if (mayAwaitOrder && message.kind === "payment" && payable.awaitsOrder(message)) {
      awaitingOrder.push(message); // left out: no debit, no row, no final status; its worker retries it soon
      continue;
    }
    const current = balance.get(message.userId) ?? 0;
    const orderRefusal = message.kind === "payment" ? payable.refusal(message) : null;
    if (orderRefusal) {
      decisions.push({ message, status: "failed", failureReason: orderRefusal });
    } else if (message.kind === "deposit") {
      balance.set(message.userId, current + message.amount);
      decisions.push({ message, status: "succeeded" });
    } else if (current >= message.amount) {
      balance.set(message.userId, current - message.amount);
      payable.markPaid(message);
      decisions.push({ message, status: "succeeded" });
    } else {
      decisions.push({ message, status: "failed", failureReason: "insufficient_funds" });
    }
  }

  for (const kind of ["deposit", "payment"] as const) {
    const rows = decisions.filter((d) => d.message.kind === kind);
    if (rows.length === 0) continue;
    const table = sql.table(kind === "deposit" ? "deposits" : "payments");
    const inserted = await sql`
      insert into ${table} (id, user_id, amount, currency, status, failure_reason, created_at, completed_at${kind === "payment" ? sql`, order_id` : sql``})
      select id, user_id, amount, currency, status, failure_reason, to_timestamp(created_ms / 1000.0), clock_timestamp()${kind === "payment" ? sql`, order_id` : sql``}
      from unnest(${rows.map((d) => d.message.id)}::text[], ${rows.map((d) => d.message.userId)}::text[],
                  ${rows.map((d) => d.message.amount)}::bigint[], ${rows.map((d) => d.message.currency)}::text[],
                  ${rows.map((d) => d.status)}::text[], ${rows.map((d) => d.failureReason ?? null)}::text[],
                  ${rows.map((d) => d.message.createdAt)}::float8[], ${rows.map((d) => d.message.orderId ?? null)}::text[])
        as v(id, user_id, amount, currency, status, failure_reason, created_ms, order_id)
      on conflict (id) do nothing`.execute(trx);
    statements += 1;
    if (Number(inserted.numAffectedRows ?? 0) !== rows.length) {
      throw new ConcurrentApplyError(
        `${rows.length - Number(inserted.numAffectedRows ?? 0)} ${kind} ids already present`,
      );
    }
  }

  // Conditional update by delta: even if the lock reasoning above were wrong, no balance goes below zero
  // (and the CHECK constraint stands behind this).
  const deltas = new Map<string, number>();
  for (const d of decisions) {
    if (d.status !== "succeeded") continue;
    const sign = d.message.kind === "deposit" ? 1 : -1;
    deltas.set(d.message.userId, (deltas.get(d.message.userId) ?? 0) + sign * d.message.amount);
  }
  const changed = [...deltas].filter(([, delta]) => delta !== 0);
  if (changed.length > 0) {
    const updated = await sql`
      update wallets w set balance = w.balance + v.delta, updated_at = now()
      from unnest(${changed.map(([user]) => user)}::text[], ${changed.map(([, delta]) => delta)}::bigint[]) as v(user_id, delta)
      where w.user_id = v.user_id and w.balance + v.delta >= 0`.execute(trx);
    statements += 1;
    if (Number(updated.numAffectedRows ?? 0) !== changed.length) {
      throw new ConcurrentApplyError("a wallet changed under its lock");
    }
  }
  statements += await payable.write(trx);
  return {
    decisions,
    existing,
    statements,
    paid: payable.paidCount,
    paidOrders: payable.paidOrders(),
    awaitingOrder,
  };
}

async function findApplied(trx: Transaction<ShardDatabase>, suspects: MoneyOperationMessage[]) {
  const paymentIds = suspects.filter((m) => m.kind === "payment").map((m) => m.id);
  const depositIds = suspects.filter((m) => m.kind === "deposit").map((m) => m.id);
  const found = await sql<ExistingRow>`
    select id, status, failure_reason, completed_at from payments where id = any(${paymentIds}::text[])
    union all
    select id, status, failure_reason, completed_at from deposits where id = any(${depositIds}::text[])`.execute(
    trx,
  );
  return found.rows;
}
