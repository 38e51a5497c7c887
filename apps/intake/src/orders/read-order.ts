// An order's view. The shard is the truth once the order is persisted (its status moves on after that:
// paid, cancelled, expired), so it is read first; while the order is still queued only Redis knows it.
import { type OrderMessage, type OrderView, parseOperationId } from "@floodgate/domain";
import { readStatusRecord } from "@floodgate/queue";
import type { FastifyInstance } from "fastify";
import { ProblemError } from "../errors/error-catalogue.ts";

export async function readOrder(app: FastifyInstance, orderId: string): Promise<OrderView> {
  const parsed = parseOperationId(orderId);
  const notFound = () => new ProblemError("not_found", { field: "orderId", detail: `no order ${orderId}` });
  if (parsed?.kind !== "order") throw notFound();

  const db = app.shards.forBucket(parsed.bucket);
  const row = await db.selectFrom("orders").selectAll().where("id", "=", orderId).executeTakeFirst();
  if (row) {
    const items = await db
      .selectFrom("order_items")
      .select(["product_id", "quantity", "unit_price"])
      .where("order_id", "=", orderId)
      .orderBy("line")
      .execute();
    const view: OrderView = {
      id: row.id,
      userId: row.user_id,
      status: row.status,
      items: items.map((item) => ({
        productId: item.product_id,
        quantity: item.quantity,
        unitPrice: item.unit_price,
      })),
      subtotal: row.amount + row.discount,
      discount: row.discount,
      amount: row.amount,
      currency: row.currency,
      createdAt: row.created_at.toISOString(),
      expiresAt: row.expires_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    };
    if (row.failure_reason) view.failureReason = row.failure_reason;
    if (row.coupon_issue_id) view.couponIssueId = row.coupon_issue_id;
    if (row.payment_id) view.paymentId = row.payment_id;
    return view;
  }

  const record = await readStatusRecord(app.redis, app.queueKeys, orderId);
  if (record === null || record.message.kind !== "order") throw notFound();
  // Not on the shard: still queued, or given up on (dead-lettered). A "succeeded" record without a row
  // would mean the row is gone: treat it as unknown rather than invent a state.
  if (record.status === "succeeded") throw notFound();
  return pendingView(record.message, record.status === "failed" ? "failed" : "pending", record.failureReason);
}

function pendingView(message: OrderMessage, status: "pending" | "failed", failureReason?: string): OrderView {
  const view: OrderView = {
    id: message.id,
    userId: message.userId,
    status,
    items: message.items,
    subtotal: message.amount + message.discount,
    discount: message.discount,
    amount: message.amount,
    currency: message.currency,
    createdAt: new Date(message.createdAt).toISOString(),
    expiresAt: new Date(message.expiresAt).toISOString(),
  };
  if (failureReason) view.failureReason = failureReason;
  if (message.couponIssueId) view.couponIssueId = message.couponIssueId;
  return view;
}
