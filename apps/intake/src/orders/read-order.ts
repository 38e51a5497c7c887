// An order's view. The shard is the truth once the order is persisted (its status moves on after that:
// paid, cancelled, expired), so it is read first; while the order is still queued only Redis knows it.
// One lookup on the shard, a second only in the moment between a worker's commit and its status write.
import type { ShardDatabase } from "@floodgate/db";
import { type OrderMessage, type OrderView, parseOperationId } from "@floodgate/domain";
import { readStatusRecord } from "@floodgate/queue";
import type { FastifyInstance } from "fastify";
import type { Kysely } from "kysely";
import { ProblemError } from "../errors/error-catalogue.ts";
import { orderViewOfRow } from "./order-row-view.ts";

export async function readOrder(app: FastifyInstance, orderId: string): Promise<OrderView> {
  const parsed = parseOperationId(orderId);
  const notFound = () => new ProblemError("not_found", { field: "orderId", detail: `no order ${orderId}` });
  if (parsed?.kind !== "order") throw notFound();

  const db = app.shards.forBucket(parsed.bucket);
  const persisted = await readPersistedOrder(db, orderId);
  if (persisted) return persisted;

  const record = await readStatusRecord(app.redis, app.queueKeys, orderId);
  if (record === null || record.message.kind !== "order") throw notFound();
  if (record.status === "succeeded") {
    // The worker writes this status after committing the row, so the row was committed after the read above
    // looked (a page's socket opens on the 202, as the worker applies the order): it is there now. Only a row
    // that is gone is unknown; that is not a state to invent.
    const committed = await readPersistedOrder(db, orderId);
    if (committed) return committed;
    throw notFound();
  }
  // Not on the shard: still queued, or given up on (dead-lettered).
  return pendingView(record.message, record.status === "failed" ? "failed" : "pending", record.failureReason);
}

async function readPersistedOrder(
  db: Kysely<ShardDatabase>,
  orderId: string,
): Promise<OrderView | undefined> {
  const row = await db.selectFrom("orders").selectAll().where("id", "=", orderId).executeTakeFirst();
  if (!row) return undefined;
  const items = await db
    .selectFrom("order_items")
    .select(["product_id", "quantity", "unit_price"])
    .where("order_id", "=", orderId)
    .orderBy("line")
    .execute();
  return orderViewOfRow(
    row,
    items.map((item) => ({
      productId: item.product_id,
      quantity: item.quantity,
      unitPrice: item.unit_price,
    })),
  );
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
