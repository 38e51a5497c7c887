// Each coupon issue's redemption record in Redis ({p}:cis:<issueId>, written by issue-coupon-10.lua and read by
// reserve-order-n.lua): without it the holder cannot use the coupon, and its `orderId` is what stops a second
// order using it. With the queue drained, `orderId` names exactly the order the shard says uses it.

import { execOrThrow } from "@floodgate/queue";
import type { CouponRow } from "./coupon-checks.ts";
import type { DriftFinding } from "./drift-finding.ts";
import type { ReconcileStores } from "./reconcile-stores.ts";

export interface CouponIssueRow {
  id: string;
  user_id: string;
  status: "issued" | "used";
  order_id: string | null;
}

const CHUNK = 1000;

/**
 * Reads a thousand issues at a time, one pipeline per partition (each record is in its holder's partition, so each
 * pipeline is one slot, as a cluster requires), the partitions' pipelines all sent at once. Not watched: only
 * scripts that append to a stream change these keys.
 */
export async function checkIssueRecords(
  stores: ReconcileStores,
  coupon: CouponRow,
  rows: CouponIssueRow[],
): Promise<DriftFinding[]> {
  const { keys, redis } = stores;
  const missing: { key: string; fields: Record<string, string> }[] = [];
  const changed: { key: string; set: Record<string, string>; unsetOrder: boolean }[] = [];
  for (let start = 0; start < rows.length; start += CHUNK) {
    const chunk = rows.slice(start, start + CHUNK);
    const recordKeys = chunk.map((row) => {
      const partition = keys.partitionForOperation(row.id) ?? keys.partitionForUser(row.user_id);
      return { partition, key: keys.couponIssue(partition, row.id) };
    });
    const records = await readHashesByPartition(redis, recordKeys);
    chunk.forEach((row, i) => {
      const record = records[i]!;
      const expected: Record<string, string> = {
        couponId: coupon.id,
        userId: row.user_id,
        discountType: coupon.discount_type,
        discountValue: String(coupon.discount_value),
      };
      const orderId = row.status === "used" ? row.order_id : null;
      const { key } = recordKeys[i]!;
      if (Object.keys(record).length === 0) {
        missing.push({ key, fields: orderId ? { ...expected, orderId } : expected });
        return;
      }
      const set = Object.fromEntries(Object.entries(expected).filter(([field, v]) => record[field] !== v));
      if (orderId && record.orderId !== orderId) set.orderId = orderId;
      const unsetOrder = !orderId && record.orderId !== undefined;
      if (Object.keys(set).length > 0 || unsetOrder) changed.push({ key, set, unsetOrder });
    });
  }
  if (missing.length + changed.length === 0) return [];
  const parts = [
    missing.length > 0 ? `${missing.length} missing` : "",
    changed.length > 0 ? `${changed.length} disagreeing (fields or the order using it)` : "",
  ].filter(Boolean);
  return [
    {
      subject: "coupon",
      id: coupon.id,
      kind: "coupon_issue_records",
      detail: `redis redemption records of its ${rows.length} issues: ${parts.join(", ")}`,
      needsDrained: true,
      repair: {
        summary: "set from the issues and the orders using them",
        write: (tx) => {
          for (const { key, fields } of missing) tx.hset(key, fields);
          for (const { key, set, unsetOrder } of changed) {
            if (Object.keys(set).length > 0) tx.hset(key, set);
            if (unsetOrder) tx.hdel(key, "orderId");
          }
        },
      },
    },
  ];
}

/** HGETALL of every key, in the keys' order: one pipeline per partition, all at once. */
async function readHashesByPartition(
  redis: ReconcileStores["redis"],
  keys: { partition: number; key: string }[],
): Promise<Record<string, string>[]> {
  const byPartition = new Map<number, number[]>();
  keys.forEach(({ partition }, i) => {
    const indexes = byPartition.get(partition);
    if (indexes) indexes.push(i);
    else byPartition.set(partition, [i]);
  });
  const records: Record<string, string>[] = new Array(keys.length);
  await Promise.all(
    [...byPartition.values()].map(async (indexes) => {
      const pipeline = redis.pipeline();
      for (const i of indexes) pipeline.hgetall(keys[i]!.key);
      const replies = await execOrThrow(pipeline, `reading ${indexes.length} coupon issue records`);
      indexes.forEach((i, n) => {
        records[i] = replies[n] as Record<string, string>;
      });
    }),
  );
  return records;
}
