// An order's view from its shard row and lines: what GET /v1/orders/:orderId answers for a persisted order and
// what GET /v1/orders lists, written once so the two cannot drift.
import type { OrdersTable } from "@floodgate/db";
import type { OrderView } from "@floodgate/domain";
import type { Selectable } from "kysely";

export type OrderLine = OrderView["items"][number];

export function orderViewOfRow(row: Selectable<OrdersTable>, items: OrderLine[]): OrderView {
  const view: OrderView = {
    id: row.id,
    userId: row.user_id,
    status: row.status,
    items,
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
  if (row.provider) view.provider = row.provider;
  if (row.provider_reference) view.reference = row.provider_reference;
  return view;
}
