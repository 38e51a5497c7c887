// The GET view of an order that reached a final state (paid, cancelled, expired), made by Postgres inside the
// statement that records its event (outbox-writer.ts), so the event carries its data without a read of its
// own in the shard transaction. The same fields as the intake's order view (apps/intake/src/orders/
// order-row-view.ts) and the relay's (webhooks/final-order-views.ts); events-feed.test.ts compares the three.
// Timestamps as JavaScript's toISOString writes them (UTC, milliseconds); optional fields left out when null.
import { type RawBuilder, sql } from "kysely";

const iso = (column: string) =>
  sql`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A jsonb expression: the view of the order whose id is `orderId` (an SQL expression), null if none. */
export function finalOrderJson(orderId: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(
    select jsonb_strip_nulls(jsonb_build_object(
      'id', o.id, 'userId', o.user_id, 'status', o.status, 'failureReason', o.failure_reason,
      'items', coalesce((
        select jsonb_agg(jsonb_build_object(
                 'productId', i.product_id, 'quantity', i.quantity, 'unitPrice', i.unit_price) order by i.line)
        from order_items i where i.order_id = o.id), '[]'::jsonb),
      'subtotal', o.amount + o.discount, 'discount', o.discount, 'amount', o.amount, 'currency', o.currency,
      'couponIssueId', o.coupon_issue_id, 'paymentId', o.payment_id,
      'provider', o.provider, 'reference', o.provider_reference,
      'createdAt', ${iso("o.created_at")}, 'expiresAt', ${iso("o.expires_at")},
      'updatedAt', ${iso("o.updated_at")}))
    from orders o where o.id = ${orderId})`;
}
