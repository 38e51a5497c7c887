// Reconcile's reads over every partition against a real Redis Cluster (3 masters, on free ports): the queue's
// activity and the coupon issue records are read per slot, so they come out right with the partitions spread
// over every master. (Its repairs, one WATCH + MULTI per slot: cluster-repairs.test.ts.)
import { newOperationId } from "@floodgate/domain";
import { CONSUMER_GROUP, QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { bucketForUser } from "@floodgate/shard-router";
import { type RedisCluster, startRedisCluster } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CouponRow } from "../src/coupon-checks.ts";
import { type CouponIssueRow, checkIssueRecords } from "../src/coupon-issue-records.ts";
import { readQueueActivity } from "../src/queue-activity.ts";
import type { ReconcileStores } from "../src/reconcile-stores.ts";

let cluster: RedisCluster;
let redis: ScriptedRedis;
const keys = new QueueKeys("reconcile-cluster:", 16);

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 0 });
  redis = createRedis(cluster.url, { name: "reconcile-cluster" });
  await waitForRedis(redis);
});

afterAll(async () => {
  redis?.disconnect();
  await cluster?.stop();
});

/** Ports of the masters serving these keys, asked of the cluster itself. */
async function mastersOf(keyList: string[]): Promise<Set<number>> {
  const ranges = await redis.cluster("SLOTS");
  const masters = new Set<number>();
  for (const key of keyList) {
    const slot = (await redis.cluster("KEYSLOT", key)) as number;
    masters.add(ranges.find(([from, to]) => slot >= from && slot <= to)![2]![1]);
  }
  return masters;
}

describe("readQueueActivity on a cluster", () => {
  it("sums what is pending and undelivered over partitions on every master, and sees it drain", async () => {
    const streams = keys.allStreams();
    expect([...(await mastersOf(streams))].sort()).toEqual([...cluster.masters].sort());
    // Partitions 0-3: never written. 4-5: entries before any group. 6-15: the group, 3 entries, 1 delivered.
    for (const [p, stream] of streams.entries()) {
      if (p < 4) continue;
      if (p >= 6) await redis.xgroup("CREATE", stream, CONSUMER_GROUP, "$", "MKSTREAM");
      for (let n = 0; n < 3; n++) await redis.xadd(stream, "*", "id", `op-${p}-${n}`);
      if (p >= 6) await redis.xreadgroup("GROUP", CONSUMER_GROUP, "w", "COUNT", 1, "STREAMS", stream, ">");
    }
    const busy = await readQueueActivity(redis, keys);
    expect(busy).toMatchObject({ drained: false, pending: 10, undelivered: 2 * 3 + 10 * 2 });
    const marks = busy.fingerprint.split(" ");
    expect(marks).toHaveLength(16);
    expect(marks.slice(0, 4)).toEqual(["-", "-", "-", "-"]);
    expect(marks[4]).toMatch(/^\d+-\d+\/none$/);
    expect(marks[6]).toMatch(/^\d+-\d+\/\d+-\d+\/1$/);

    // The workers take and acknowledge everything; the group-less partitions are emptied.
    for (const [p, stream] of streams.entries()) {
      if (p < 4) continue;
      if (p < 6) {
        await redis.del(stream);
        continue;
      }
      await redis.xreadgroup("GROUP", CONSUMER_GROUP, "w", "COUNT", 10, "STREAMS", stream, ">");
      const held = (await redis.xpending(stream, CONSUMER_GROUP, "-", "+", 10)) as [string][];
      await redis.xack(stream, CONSUMER_GROUP, ...held.map(([id]) => id));
    }
    const drained = await readQueueActivity(redis, keys);
    expect(drained).toMatchObject({ drained: true, pending: 0, undelivered: 0 });
  });
});

describe("checkIssueRecords on a cluster", () => {
  const coupon: CouponRow = {
    id: "cpn_cluster",
    name: "cluster",
    quantity: 100,
    starts_at: null,
    ends_at: null,
    discount_type: "fixed",
    discount_value: 500,
    created_at: new Date(),
  };
  const rows: CouponIssueRow[] = Array.from({ length: 24 }, (_, i) => {
    const userId = `holder-${i}`;
    return {
      id: newOperationId("coupon_issue", bucketForUser(userId)),
      user_id: userId,
      status: i % 3 === 0 ? "used" : "issued",
      order_id: i % 3 === 0 ? `ord_of_${i}` : null,
    };
  });
  const recordKey = (row: CouponIssueRow) => keys.couponIssue(keys.partitionForUser(row.user_id), row.id);
  /** Only what the check reads: the queue's keys and the connection. */
  const stores = () => ({ keys, redis }) as unknown as ReconcileStores;

  beforeAll(async () => {
    for (const row of rows) {
      await redis.hset(recordKey(row), {
        couponId: coupon.id,
        userId: row.user_id,
        discountType: coupon.discount_type,
        discountValue: String(coupon.discount_value),
        ...(row.order_id ? { orderId: row.order_id } : {}),
      });
    }
  });

  it("finds the records on every master in agreement", async () => {
    expect((await mastersOf(rows.map(recordKey))).size).toBe(3);
    expect(await checkIssueRecords(stores(), coupon, rows)).toEqual([]);
  });

  it("finds a missing record and one naming another order, wherever they are", async () => {
    await redis.del(recordKey(rows[5]!));
    await redis.hset(recordKey(rows[9]!), "orderId", "ord_other");
    const findings = await checkIssueRecords(stores(), coupon, rows);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ kind: "coupon_issue_records", id: coupon.id });
    expect(findings[0]!.detail).toContain("1 missing, 1 disagreeing");
  });
});
