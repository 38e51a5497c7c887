// A refund's view: Redis while its status is recent (as for payments), the payment's shard after that. A full
// refund (no amount asked) learns its amount on the shard, so once it succeeded that is read there too: one
// primary-key lookup on the one shard the id names.
import { parseOperationId, type RefundView } from "@floodgate/domain";
import { readRefundStatus } from "@floodgate/queue";
import type { FastifyInstance } from "fastify";
import { ProblemError } from "../errors/error-catalogue.ts";

export async function readRefund(app: FastifyInstance, id: string): Promise<RefundView> {
  const parsed = parseOperationId(id);
  if (parsed === null) throw new ProblemError("invalid_operation_id", { field: "id" });
  const notFound = () => new ProblemError("not_found", { field: "id", detail: `no refund ${id}` });
  if (parsed.kind !== "refund") throw notFound();

  const recent = await readRefundStatus(app.redis, app.queueKeys, id);
  if (recent && (recent.status === "pending" || recent.amount !== undefined)) return recent;
  const row = await app.shards
    .forBucket(parsed.bucket)
    .selectFrom("refunds")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) {
    if (recent) return recent; // dead-lettered: final in Redis, never on the shard
    throw notFound();
  }
  const view: RefundView = {
    id: row.id,
    paymentId: row.payment_id,
    currency: row.currency,
    restock: row.restock,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    completedAt: row.completed_at.toISOString(),
  };
  if (row.amount !== null) view.amount = Number(row.amount);
  if (row.reason !== null) view.reason = row.reason;
  if (row.failure_reason) view.failureReason = row.failure_reason as RefundView["failureReason"];
  return view;
}
