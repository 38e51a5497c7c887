// Cancels and expiries of one shard's batch, inside that batch's transaction. An order ends only from
// awaiting_payment (a conditional update: a paid order stays paid, whichever of payment and expiry came
// first in the stream); its coupon is given back on the shard in the same transaction. Every order these
// messages name that has ended without a sale is returned for release: a redelivery re-releases nothing
// (the ledger and Redis remember), but it finishes a release the first delivery may not have reached.
//
// An end request can reach the shard before its order: the intake accepted the order first, but another worker
// read the order and has not committed it yet, or its entry was reclaimed behind this one. Such a request is
// left out of the batch and retried by its worker shortly after, like a payment that names its order too early
// (pay-orders.ts); the batch goes on without it.
import type { ShardDatabase } from "@floodgate/db";
import type { OrderCancelMessage } from "@floodgate/domain";
import { sql, type Transaction } from "kysely";
import type { EndedOrder } from "./order-outcomes.ts";
import { type OrderSessionColumns, orderSessionOf } from "./order-session.ts";
import { mayStillBeRecorded } from "./pay-orders.ts";

/**
 * The order is not on the shard and can no longer be on its way (older than the wait, or the worker holds as
 * many waiting requests as it will): the message fails on its own, is redelivered, and is dead-lettered after
 * the last delivery.
 */
export class OrderNotYetRecordedError extends Error {
  constructor(orderId: string) {
    super(`order ${orderId} is not on its shard; the end request cannot wait for it any longer`);
    this.name = "OrderNotYetRecordedError";
  }
}

export interface OrderEndsApplied {
  /** Orders that ended in this transaction, by reason. */
  endedNow: { orderId: string; status: "cancelled" | "expired" }[];
  ended: EndedOrder[];
  /** Requests left out because their order is not on the shard yet but may still arrive: not applied. */
  awaiting: OrderCancelMessage[];
  statements: number;
}

export const noOrderEnds = (): OrderEndsApplied => ({ endedNow: [], ended: [], awaiting: [], statements: 0 });

export async function applyOrderEnds(
  trx: Transaction<ShardDatabase>,
  messages: OrderCancelMessage[],
  mayAwaitOrder = true,
): Promise<OrderEndsApplied> {
  // The first request for an order decides its reason (request-order-end-3.lua lets only one through).
  const requests = [...new Map(messages.map((m) => [m.orderId, m])).values()].sort((a, b) =>
    a.orderId < b.orderId ? -1 : 1,
  );
  const orderIds = requests.map((m) => m.orderId);
  const changed = await sql<{ id: string; status: "cancelled" | "expired" }>`
    update orders o set status = v.reason, updated_at = now()
    from unnest(${orderIds}::text[], ${requests.map((m) => m.reason)}::text[]) as v(id, reason)
    where o.id = v.id and o.status = 'awaiting_payment'
    returning o.id, o.status`.execute(trx);
  let statements = 1;
  const endedNowIds = changed.rows.map((row) => row.id);
  if (endedNowIds.length > 0) {
    await sql`update issued_coupons set status = 'issued', used_at = null, order_id = null
              where order_id = any(${endedNowIds}::text[]) and status = 'used'`.execute(trx);
    statements += 1;
  }

  const rows = await sql<
    {
      id: string;
      user_id: string;
      status: string;
      coupon_issue_id: string | null;
      product_id: string;
      quantity: number;
    } & OrderSessionColumns
  >`
    select o.id, o.user_id, o.status, o.coupon_issue_id, i.product_id, i.quantity, o.session_room_id,
           o.session_ticket_id
    from orders o join order_items i on i.order_id = o.id
    where o.id = any(${orderIds}::text[])
    order by o.id, i.line`.execute(trx);
  statements += 1;
  const byOrder = new Map<string, EndedOrder | null>();
  const endedHere = new Set(endedNowIds);
  for (const row of rows.rows) {
    // Each statement reads what was committed when it started. An order still awaiting payment that the update
    // above did not end was committed after the update looked (another worker's batch): for this request it is
    // not on the shard yet, so it waits below and is retried, and then the update ends it. Taken as "nothing to
    // give back", the request was acknowledged and the order never expired (caught by orders-expiry.test.ts).
    if (row.status === "awaiting_payment" && !endedHere.has(row.id)) continue;
    if (row.status !== "cancelled" && row.status !== "expired" && row.status !== "failed") {
      byOrder.set(row.id, null); // paid: nothing to give back
      continue;
    }
    let ended = byOrder.get(row.id);
    if (ended === undefined) {
      ended = {
        orderId: row.id,
        userId: row.user_id,
        items: [],
        couponIssueId: row.coupon_issue_id,
        status: row.status,
        session: orderSessionOf(row),
      };
      byOrder.set(row.id, ended);
    }
    ended?.items.push({ productId: row.product_id, quantity: row.quantity });
  }
  // Nothing above touched a missing order (both updates and the read match rows by id), so leaving its
  // requests out needs no undo.
  const awaiting: OrderCancelMessage[] = [];
  for (const message of messages) {
    if (byOrder.has(message.orderId)) continue;
    if (!mayAwaitOrder || !mayStillBeRecorded(message.orderId, message.userId)) {
      throw new OrderNotYetRecordedError(message.orderId);
    }
    awaiting.push(message);
  }
  return {
    endedNow: changed.rows.map((row) => ({ orderId: row.id, status: row.status })),
    ended: [...byOrder.values()].filter((e): e is EndedOrder => e !== null),
    awaiting,
    statements,
  };
}
