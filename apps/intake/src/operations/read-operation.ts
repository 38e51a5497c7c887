import type { PaymentsTable } from "@floodgate/db";
import {
  type MoneyOperationKind,
  moneyOperationBody,
  type OperationView,
  parseOperationId,
} from "@floodgate/domain";
import { readOperationStatus } from "@floodgate/queue";
import type { FastifyInstance } from "fastify";
import type { Selectable } from "kysely";
import { ProblemError } from "../errors/error-catalogue.ts";

const TABLE: Record<MoneyOperationKind, "payments" | "deposits"> = {
  payment: "payments",
  deposit: "deposits",
};

/** Redis while the status is recent; after its TTL, the one shard the id names (no scatter). */
export async function readOperation(
  app: FastifyInstance,
  kind: MoneyOperationKind,
  id: string,
): Promise<OperationView> {
  const parsed = parseOperationId(id);
  if (parsed === null) throw new ProblemError("invalid_operation_id", { field: "id" });
  const notFound = () => new ProblemError("not_found", { field: "id", detail: `no ${kind} ${id}` });
  if (parsed.kind !== kind) throw notFound();

  const recent = await readOperationStatus(app.redis, app.queueKeys, id);
  if (recent) return recent;

  // Deposits have the same columns but order_id.
  const row: (Partial<Selectable<PaymentsTable>> & Omit<Selectable<PaymentsTable>, "order_id">) | undefined =
    await app.shards
      .forBucket(parsed.bucket)
      .selectFrom(TABLE[kind])
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirst();
  if (!row) throw notFound();
  const view = moneyOperationBody({
    ...row,
    userId: row.user_id,
    orderId: row.order_id,
    failureReason: row.failure_reason,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  });
  return { ...view, kind };
}
