// The orders of one shard's batch, inside that batch's transaction. Redis already reserved their stock and
// their coupon; the shard records the order and its lines, and redeems the coupon with a conditional update
// (a coupon is used at most once, whatever Redis says). An order whose coupon cannot be redeemed is recorded
// as failed (coupon_unavailable) and its reservation is released after the commit.
import type { ShardDatabase } from "@floodgate/db";
import type { FailureReason, OrderMessage, OrderSession } from "@floodgate/domain";
import type { FinalStatus } from "@floodgate/queue";
import { sql, type Transaction } from "kysely";
import type { AwaitingOrder, EndedOrder } from "./order-outcomes.ts";

export interface OrderDecision {
  message: OrderMessage;
  status: FinalStatus["status"];
  failureReason?: FailureReason;
}

export interface OrdersApplied {
  decisions: OrderDecision[];
  redelivered: {
    id: string;
    completedAt: number;
    status: FinalStatus["status"];
    failureReason?: FailureReason;
  }[];
  ended: EndedOrder[];
  awaiting: AwaitingOrder[];
  /** Sessions of orders paid once recorded (nothing to pay), now or before: checkout done, they end. */
  checkedOut: OrderSession[];
  statements: number;
}

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export const noOrders = (): OrdersApplied => ({
  decisions: [],
  redelivered: [],
  ended: [],
  awaiting: [],
  checkedOut: [],
  statements: 0,
});

export async function applyOrders(
  trx: Transaction<ShardDatabase>,
  messages: OrderMessage[],
): Promise<OrdersApplied> {
  const unique = [...new Map(messages.map((m) => [m.id, m])).values()].sort(byId);
  // An order of amount 0 (a coupon covered it) has nothing to pay: it is paid when recorded.
  const inserted = await sql<{ id: string }>`
    insert into orders (id, user_id, status, amount, discount, currency, coupon_issue_id, expires_at, created_at,
                        completed_at, session_room_id, session_ticket_id)
    select id, user_id, case when amount = 0 then 'paid' else 'awaiting_payment' end, amount, discount, currency,
           coupon_issue_id, to_timestamp(expires_ms / 1000.0), to_timestamp(created_ms / 1000.0), clock_timestamp(),
           session_room_id, session_ticket_id
    from unnest(${unique.map((m) => m.id)}::text[], ${unique.map((m) => m.userId)}::text[],
                ${unique.map((m) => m.amount)}::bigint[], ${unique.map((m) => m.discount)}::bigint[],
                ${unique.map((m) => m.currency)}::text[], ${unique.map((m) => m.couponIssueId ?? null)}::text[],
                ${unique.map((m) => m.expiresAt)}::float8[], ${unique.map((m) => m.createdAt)}::float8[],
                ${unique.map((m) => m.session?.roomId ?? null)}::text[],
                ${unique.map((m) => m.session?.ticketId ?? null)}::text[])
      as v(id, user_id, amount, discount, currency, coupon_issue_id, expires_ms, created_ms, session_room_id,
           session_ticket_id)
    on conflict (id) do nothing
    returning id`.execute(trx);
  let statements = 1;
  const insertedIds = new Set(inserted.rows.map((row) => row.id));
  const fresh = unique.filter((m) => insertedIds.has(m.id));

  if (fresh.length > 0) {
    const lines = fresh.flatMap((m) => m.items.map((item, i) => ({ orderId: m.id, line: i + 1, ...item })));
    await sql`
      insert into order_items (order_id, line, product_id, quantity, unit_price)
      select * from unnest(${lines.map((l) => l.orderId)}::text[], ${lines.map((l) => l.line)}::int[],
                           ${lines.map((l) => l.productId)}::text[], ${lines.map((l) => l.quantity)}::int[],
                           ${lines.map((l) => l.unitPrice)}::bigint[])`.execute(trx);
    statements += 1;
  }

  // Redeem coupons: only an issued coupon of the same user, not yet used.
  const withCoupon = fresh.filter((m) => m.couponIssueId !== undefined);
  const unredeemed = new Set<string>();
  if (withCoupon.length > 0) {
    const redeemed = await sql<{ order_id: string }>`
      update issued_coupons c set status = 'used', used_at = now(), order_id = v.order_id
      from unnest(${withCoupon.map((m) => m.couponIssueId!)}::text[], ${withCoupon.map((m) => m.id)}::text[],
                  ${withCoupon.map((m) => m.userId)}::text[]) as v(coupon_issue_id, order_id, user_id)
      where c.id = v.coupon_issue_id and c.user_id = v.user_id and c.status = 'issued'
      returning c.order_id`.execute(trx);
    statements += 1;
    const ok = new Set(redeemed.rows.map((row) => row.order_id));
    for (const m of withCoupon) if (!ok.has(m.id)) unredeemed.add(m.id);
    if (unredeemed.size > 0) {
      await sql`update orders set status = 'failed', failure_reason = 'coupon_unavailable', updated_at = now()
                where id = any(${[...unredeemed]}::text[])`.execute(trx);
      statements += 1;
    }
  }

  const decisions: OrderDecision[] = fresh.map((message) =>
    unredeemed.has(message.id)
      ? { message, status: "failed", failureReason: "coupon_unavailable" }
      : { message, status: "succeeded" },
  );
  const ended: EndedOrder[] = fresh.filter((m) => unredeemed.has(m.id)).map((m) => endedOrder(m, "failed"));
  const awaiting: AwaitingOrder[] = fresh
    .filter((m) => !unredeemed.has(m.id) && m.amount > 0)
    .map((m) => ({ orderId: m.id, userId: m.userId, expiresAt: m.expiresAt }));
  const checkedOut: OrderSession[] = fresh
    .filter((m) => !unredeemed.has(m.id) && m.amount === 0)
    .flatMap((m) => (m.session ? [m.session] : []));

  // Redeliveries: report what the shard holds, and redo the after-commit steps their first delivery may not
  // have reached (a release, an expiry job); both are idempotent.
  const redelivered: OrdersApplied["redelivered"] = [];
  const repeated = unique.filter((m) => !insertedIds.has(m.id));
  if (repeated.length > 0) {
    const rows = await sql<{ id: string; status: string; failure_reason: string | null; completed_at: Date }>`
      select id, status, failure_reason, completed_at from orders where id = any(${repeated.map((m) => m.id)}::text[])`.execute(
      trx,
    );
    statements += 1;
    const found = new Map(rows.rows.map((row) => [row.id, row]));
    for (const message of repeated) {
      const row = found.get(message.id);
      if (!row) throw new Error(`order ${message.id} conflicted on insert but is not on the shard`);
      const failed = row.status === "failed";
      redelivered.push({
        id: message.id,
        completedAt: row.completed_at.getTime(),
        status: failed ? "failed" : "succeeded",
        ...(failed && row.failure_reason ? { failureReason: row.failure_reason as FailureReason } : {}),
      });
      if (row.status === "failed" || row.status === "cancelled" || row.status === "expired") {
        ended.push(endedOrder(message, row.status));
      } else if (row.status === "awaiting_payment") {
        awaiting.push({ orderId: message.id, userId: message.userId, expiresAt: message.expiresAt });
      } else if (message.session) {
        checkedOut.push(message.session); // paid (or refunded since): its session ends, again (idempotent)
      }
    }
  }
  return { decisions, redelivered, ended, awaiting, checkedOut, statements };
}

function endedOrder(message: OrderMessage, status: EndedOrder["status"]): EndedOrder {
  return {
    orderId: message.id,
    userId: message.userId,
    items: message.items,
    couponIssueId: message.couponIssueId ?? null,
    status,
    session: message.session ?? null,
  };
}
