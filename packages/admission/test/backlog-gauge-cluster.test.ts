// The backlog gauge against a real Redis Cluster (3 masters, on free ports): 16 partition streams spread over
// every master, read on an auto-pipelined connection as the admission leader reads them, give the same backlog
// and rate as on one Redis.
import { CONSUMER_GROUP, QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { type RedisCluster, startRedisCluster } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BacklogGauge } from "../src/backlog-gauge.ts";

let cluster: RedisCluster;
let redis: ScriptedRedis;
const keys = new QueueKeys("gauge-cluster:", 16);
const streams = keys.allStreams();
const t0 = 1_000_000;

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 0 });
  redis = createRedis(cluster.url, { name: "gauge-cluster", autoPipelining: true });
  await waitForRedis(redis);
  // Partition p holds p + 1 entries. Partitions 0-14 have the workers' group; in the even ones a worker took
  // two entries (one for partition 0) and acknowledged one. Partition 15 was never read: no group.
  for (const [p, stream] of streams.entries()) {
    if (p < 15) await redis.xgroup("CREATE", stream, CONSUMER_GROUP, "$", "MKSTREAM");
    for (let n = 0; n <= p; n++) await redis.xadd(stream, "*", "id", `op-${p}-${n}`);
    if (p < 15 && p % 2 === 0) {
      const read = (await redis.xreadgroup(
        "GROUP",
        CONSUMER_GROUP,
        "w",
        "COUNT",
        2,
        "STREAMS",
        stream,
        ">",
      )) as [string, [string, string[]][]][];
      await redis.xack(stream, CONSUMER_GROUP, read[0]![1][0]![0]);
    }
  }
  // A worker holds 5 entries for a shard that cannot take them: not backlog.
  await redis.hset(keys.stalledEntries(), "w", `5 ${t0 + 2500}`);
});

afterAll(async () => {
  redis?.disconnect();
  await cluster?.stop();
});

describe("the backlog gauge on a cluster", () => {
  it("has the partition streams on every master", async () => {
    const masters = new Set<number>();
    const ranges = await redis.cluster("SLOTS");
    for (const stream of streams) {
      const slot = (await redis.cluster("KEYSLOT", stream)) as number;
      masters.add(ranges.find(([from, to]) => slot >= from && slot <= to)![2]![1]);
    }
    expect([...masters].sort()).toEqual([...cluster.masters].sort());
  });

  it("sums every partition's backlog and measures the workers' rate across masters", async () => {
    const gauge = new BacklogGauge();
    // Even partitions 0-14: p left (one acknowledged); odd: p + 1; partition 15: all 16; less the 5 stalled.
    const expected = 56 + 56 + 16 - 5;
    expect((await gauge.read(redis, keys, t0)).backlog).toBe(expected);

    // The workers acknowledge the 7 entries still pending (even partitions 2-14) over 2.5 s.
    for (const [p, stream] of streams.entries()) {
      if (p === 0 || p >= 15 || p % 2 === 1) continue;
      const pending = (await redis.xpending(stream, CONSUMER_GROUP, "-", "+", 10)) as [string][];
      expect(pending).toHaveLength(1);
      await redis.xack(stream, CONSUMER_GROUP, pending[0]![0]);
    }
    const reading = await gauge.read(redis, keys, t0 + 2500);
    expect(reading.backlog).toBe(expected - 7);
    expect(reading.workerRate).toBeCloseTo(7 / 2.5);
    expect(reading.drainSeconds).toBeCloseTo((expected - 7) / (7 / 2.5));
  });
});
