// The GET view of orders that reached a final state (paid, cancelled, expired), read on their shard for the
// events the outbox writes without data (event-catalogue.ts). The same fields as the intake's order view
// (apps/intake/src/orders/order-row-view.ts); a final order no longer changes, so reading it late is reading it
// as it ended.
import type { ShardDatabase } from "@floodgate/db";
import type { Kysely, Transaction } from "kysely";

export async function readFinalOrders(
  db: Kysely<ShardDatabase> | Transaction<ShardDatabase>,
  orderIds: string[],
): Promise<Map<string, Record<string, unknown>>> {
  const views = new Map<string, Record<string, unknown>>();
  if (orderIds.length === 0) return views;
  const orders = await db.selectFrom("orders").selectAll().where("id", "in", orderIds).execute();
  const items = await db
    .selectFrom("order_items")
    .select(["order_id", "product_id", "quantity", "unit_price"])
    .where("order_id", "in", orderIds)
    .orderBy("order_id")
    .orderBy("line")
    .execute();
  for (const row of orders) {
    views.set(row.id, {
      id: row.id,
      userId: row.user_id,
      status: row.status,
      ...(row.failure_reason ? { failureReason: row.failure_reason } : {}),
      items: items
        .filter((item) => item.order_id === row.id)
        .map((item) => ({ productId: item.product_id, quantity: item.quantity, unitPrice: item.unit_price })),
      subtotal: row.amount + row.discount,
      discount: row.discount,
      amount: row.amount,
      currency: row.currency,
      ...(row.coupon_issue_id ? { couponIssueId: row.coupon_issue_id } : {}),
      ...(row.payment_id ? { paymentId: row.payment_id } : {}),
      ...(row.provider ? { provider: row.provider } : {}),
      ...(row.provider_reference ? { reference: row.provider_reference } : {}),
      createdAt: row.created_at.toISOString(),
      expiresAt: row.expires_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    });
  }
  return views;
}
