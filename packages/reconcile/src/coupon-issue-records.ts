// Each coupon issue's redemption record in Redis ({p}:cis:<issueId>, written by issue-coupon-10.lua and read by
// reserve-order-n.lua): without it the holder cannot use the coupon, and its `orderId` is what stops a second
// order using it. With the queue drained, `orderId` names exactly the order the shard says uses it.

import { execOrThrow } from "@floodgate/redis-connections";
import type { CouponRow } from "./coupon-checks.ts";
import type { DriftFinding, SlotRead, SlotWrite } from "./drift-finding.ts";
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
 * pipeline is one slot, as a cluster requires), the partitions' pipelines all sent at once. The repair writes
 * per partition, each partition's in that slot's own transaction, after reading its records again under WATCH.
 */
export async function checkIssueRecords(
  stores: ReconcileStores,
  coupon: CouponRow,
  rows: CouponIssueRow[],
): Promise<DriftFinding[]> {
  const { keys, redis } = stores;
  const fixes = new Map<number, RecordFix[]>();
  let missing = 0;
  let changed = 0;
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
      const { partition, key } = recordKeys[i]!;
      const note = (fix: Omit<RecordFix, "key" | "seen">) => {
        const list = fixes.get(partition) ?? [];
        list.push({ key, seen: recordSnapshot(record), ...fix });
        fixes.set(partition, list);
      };
      if (Object.keys(record).length === 0) {
        missing++;
        note({ set: orderId ? { ...expected, orderId } : expected, unsetOrder: false });
        return;
      }
      const set = Object.fromEntries(Object.entries(expected).filter(([field, v]) => record[field] !== v));
      if (orderId && record.orderId !== orderId) set.orderId = orderId;
      const unsetOrder = !orderId && record.orderId !== undefined;
      if (Object.keys(set).length > 0 || unsetOrder) {
        changed++;
        note({ set, unsetOrder });
      }
    });
  }
  if (missing + changed === 0) return [];
  const parts = [
    missing > 0 ? `${missing} missing` : "",
    changed > 0 ? `${changed} disagreeing (fields or the order using it)` : "",
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
        writes: [...fixes].map(([partition, list]) => partitionWrite(partition, list)),
      },
    },
  ];
}

/** One record to set right: what the check read of it and what to write. */
interface RecordFix {
  key: string;
  seen: string;
  set: Record<string, string>;
  unsetOrder: boolean;
}

/** The records to set right in one partition: watched and read again, then written in its slot's MULTI. */
function partitionWrite(partition: number, fixes: RecordFix[]): SlotWrite {
  const read: SlotRead = {
    slot: `partition ${partition}`,
    keys: fixes.map((fix) => fix.key),
    seen: JSON.stringify(fixes.map((fix) => fix.seen)),
    read: async (redis) => {
      const replies = await execOrThrow(
        fixes.reduce((pipeline, fix) => pipeline.hgetall(fix.key), redis.pipeline()),
        `reading ${fixes.length} coupon issue records again`,
      );
      return JSON.stringify(replies.map((record) => recordSnapshot(record as Record<string, string>)));
    },
  };
  return {
    read,
    write: (tx) => {
      for (const { key, set, unsetOrder } of fixes) {
        if (Object.keys(set).length > 0) tx.hset(key, set);
        if (unsetOrder) tx.hdel(key, "orderId");
      }
    },
  };
}

/** Field order aside, a record as read. */
const recordSnapshot = (record: Record<string, string>) =>
  JSON.stringify(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

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
