// The coupon issues of one shard's batch, inside that batch's transaction (called by applyShardBatch). Redis
// already decided who gets a coupon; the shard records it. The primary key makes a redelivery a no-op, and
// UNIQUE (coupon_id, user_id) turns a second issue to the same holder (possible only if Redis lost its
// record of holders) into a failed status instead of a second coupon.
import type { ShardDatabase } from "@floodgate/db";
import type { CouponIssueMessage, FailureReason } from "@floodgate/domain";
import type { FinalStatus } from "@floodgate/queue";
import { sql, type Transaction } from "kysely";

export interface CouponIssueDecision {
  message: CouponIssueMessage;
  status: FinalStatus["status"];
  failureReason?: FailureReason;
}

export interface CouponIssuesApplied {
  /** Decided in this transaction (redeliveries excluded). */
  decisions: CouponIssueDecision[];
  /** Already on the shard: reported with their first commit time, not applied again. */
  redelivered: { id: string; completedAt: number }[];
  statements: number;
}

export const noCouponIssues = (): CouponIssuesApplied => ({ decisions: [], redelivered: [], statements: 0 });

export async function applyCouponIssues(
  trx: Transaction<ShardDatabase>,
  messages: CouponIssueMessage[],
): Promise<CouponIssuesApplied> {
  // One row per id, in id order: two workers inserting the same ids take their locks in the same order.
  const unique = [...new Map(messages.map((m) => [m.id, m])).values()].sort((a, b) =>
    a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
  const inserted = await sql<{ id: string }>`
    insert into issued_coupons (id, coupon_id, user_id, status, created_at, completed_at)
    select id, coupon_id, user_id, 'issued', to_timestamp(created_ms / 1000.0), clock_timestamp()
    from unnest(${unique.map((m) => m.id)}::text[], ${unique.map((m) => m.couponId)}::text[],
                ${unique.map((m) => m.userId)}::text[], ${unique.map((m) => m.createdAt)}::float8[])
      as v(id, coupon_id, user_id, created_ms)
    on conflict do nothing
    returning id`.execute(trx);
  let statements = 1;
  const insertedIds = new Set(inserted.rows.map((row) => row.id));
  const skipped = unique.filter((m) => !insertedIds.has(m.id));
  const present = new Map<string, Date>();
  if (skipped.length > 0) {
    // Read committed: this sees a row a concurrent apply of the same id committed while the insert waited.
    const found = await sql<{ id: string; completed_at: Date }>`
      select id, completed_at from issued_coupons where id = any(${skipped.map((m) => m.id)}::text[])`.execute(
      trx,
    );
    statements += 1;
    for (const row of found.rows) present.set(row.id, row.completed_at);
  }

  const decisions: CouponIssueDecision[] = [];
  const redelivered: CouponIssuesApplied["redelivered"] = [];
  for (const message of unique) {
    const completedAt = present.get(message.id);
    if (insertedIds.has(message.id)) decisions.push({ message, status: "succeeded" });
    else if (completedAt) redelivered.push({ id: message.id, completedAt: completedAt.getTime() });
    else decisions.push({ message, status: "failed", failureReason: "already_issued" });
  }
  return { decisions, redelivered, statements };
}
