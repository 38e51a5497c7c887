import type { CouponIssueView } from "@floodgate/domain";
import { parseOperationId } from "@floodgate/domain";
import { readStatusRecord } from "@floodgate/queue";
import type { FastifyInstance } from "fastify";
import { ProblemError } from "../errors/error-catalogue.ts";

/** Redis while the status is recent; after its TTL, the one shard the id names (no scatter). */
export async function readCouponIssue(app: FastifyInstance, id: string): Promise<CouponIssueView> {
  const parsed = parseOperationId(id);
  if (parsed === null) throw new ProblemError("invalid_operation_id", { field: "id" });
  const notFound = () => new ProblemError("not_found", { field: "id", detail: `no coupon issue ${id}` });
  if (parsed.kind !== "coupon_issue") throw notFound();

  const recent = await readStatusRecord(app.redis, app.queueKeys, id);
  if (recent && recent.message.kind === "coupon_issue") {
    const view: CouponIssueView = {
      id,
      couponId: recent.message.couponId,
      userId: recent.message.userId,
      status: recent.status,
      createdAt: new Date(recent.message.createdAt).toISOString(),
    };
    if (recent.failureReason) view.failureReason = recent.failureReason;
    if (recent.completedAt !== undefined) view.completedAt = new Date(recent.completedAt).toISOString();
    return view;
  }

  // Only issued coupons have rows: an issue that failed is known from Redis alone, until its status expires.
  const row = await app.shards
    .forBucket(parsed.bucket)
    .selectFrom("issued_coupons")
    .select(["coupon_id", "user_id", "created_at", "completed_at"])
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) throw notFound();
  return {
    id,
    couponId: row.coupon_id,
    userId: row.user_id,
    status: "succeeded",
    createdAt: row.created_at.toISOString(),
    completedAt: row.completed_at.toISOString(),
  };
}
