// A provider payment's view: Redis while it is pending, the order's shard once decided (the shard knows the
// order's user, which the request did not name): one primary-key lookup on the one shard the id names.
import { type ProviderPaymentView, parseOperationId, providerPaymentBody } from "@floodgate/domain";
import { readStatusRecord } from "@floodgate/queue";
import type { FastifyInstance } from "fastify";
import { ProblemError } from "../errors/error-catalogue.ts";

export async function readProviderPayment(app: FastifyInstance, id: string): Promise<ProviderPaymentView> {
  const parsed = parseOperationId(id);
  if (parsed === null) throw new ProblemError("invalid_operation_id", { field: "id" });
  const notFound = () => new ProblemError("not_found", { field: "id", detail: `no provider payment ${id}` });
  if (parsed.kind !== "provider_payment") throw notFound();

  const record = await readStatusRecord(app.redis, app.queueKeys, id);
  const recent =
    record?.message.kind === "provider_payment"
      ? providerPaymentBody({
          ...record.message,
          id,
          status: record.status,
          failureReason: record.failureReason,
          completedAt: record.completedAt,
        })
      : null;
  if (recent?.status === "pending") return recent;
  const row = await app.shards
    .forBucket(parsed.bucket)
    .selectFrom("provider_payments")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) {
    if (recent) return recent; // dead-lettered: final in Redis, never on the shard
    throw notFound();
  }
  return providerPaymentBody({
    id: row.id,
    orderId: row.order_id,
    userId: row.user_id,
    provider: row.provider,
    reference: row.reference,
    amount: row.amount,
    currency: row.currency,
    status: row.status,
    failureReason: row.failure_reason,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  });
}
