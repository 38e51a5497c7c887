// Orders: every line reserved at the edge in one Redis script, persisted on the user's shard, paid through
// the payment pipeline. Limits are the HTTP contract and the stream's (a message is the request it carries).
import type { Static } from "typebox";
import type { orderResponseSchema } from "./schemas/order-schemas.ts";

export const MAX_ORDER_LINES = 20;
export const MAX_LINE_QUANTITY = 100;

/**
 * What a shard's `orders.status` holds. The refunds migration's CHECK lists the same literals (a migration
 * imports no application code): packages/db/test/order-status-check.test.ts compares the two.
 */
export const STORED_ORDER_STATUSES = [
  "awaiting_payment",
  "paid",
  "cancelled",
  "expired",
  "failed",
  "refunded",
  "partially_refunded",
] as const;
export type StoredOrderStatus = (typeof STORED_ORDER_STATUSES)[number];

/** `pending` only while the order is in the queue; the rest are the shard's `orders.status`. */
export const ORDER_STATUSES = ["pending", ...STORED_ORDER_STATUSES] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** GET /v1/orders: orders per page unless `limit` says, and the most `limit` may say. */
export const ORDER_LIST_DEFAULT_LIMIT = 20;
export const ORDER_LIST_MAX_LIMIT = 100;

export const ORDER_END_REASONS = ["cancelled", "expired"] as const;
export type OrderEndReason = (typeof ORDER_END_REASONS)[number];

/** What GET /v1/orders/:orderId answers. */
export type OrderView = Static<typeof orderResponseSchema>;
