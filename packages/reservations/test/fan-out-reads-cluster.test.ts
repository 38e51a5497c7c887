// Reads over many partitions, coupons or products against a real Redis Cluster (3 masters, on free ports): each
// key is read in its own slot, so the answers are right with the keys spread over every master, on a plain and on
// an auto-pipelined connection (ioredis batches those per node, and would send XINFO to the wrong one alone).

import { CONSUMER_GROUP, QueueKeys, readStreamInfo, workerGroup } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { type RedisCluster, startRedisCluster } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAvailable, readIssuedCounts, writeCouponState, writeProductState } from "../src/index.ts";

let cluster: RedisCluster;
let plain: ScriptedRedis;
let pipelined: ScriptedRedis;
const keys = new QueueKeys("fan-out:", 16);

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 0 });
  plain = createRedis(cluster.url, { name: "fan-out-plain" });
  pipelined = createRedis(cluster.url, { name: "fan-out-pipelined", autoPipelining: true });
  await Promise.all([waitForRedis(plain), waitForRedis(pipelined)]);
});

afterAll(async () => {
  plain?.disconnect();
  pipelined?.disconnect();
  await cluster?.stop();
});

/** The port of the master serving a key, asked of the cluster itself. */
async function masterOf(key: string): Promise<number> {
  const slot = (await plain.cluster("KEYSLOT", key)) as number;
  const ranges = await plain.cluster("SLOTS");
  const range = ranges.find(([from, to]) => slot >= from && slot <= to);
  if (!range?.[2]) throw new Error(`no master serves slot ${slot}`);
  return range[2][1];
}

const mastersOf = async (keyList: string[]) => new Set(await Promise.all(keyList.map(masterOf)));

describe("readStreamInfo over 16 partition streams", () => {
  const streams = keys.allStreams();

  beforeAll(async () => {
    // Partition p holds p + 1 entries; the workers' group has read two of them in even partitions.
    for (const [p, stream] of streams.entries()) {
      await plain.xgroup("CREATE", stream, CONSUMER_GROUP, "$", "MKSTREAM");
      for (let n = 0; n <= p; n++) await plain.xadd(stream, "*", "id", `op-${p}-${n}`);
      if (p % 2 === 0)
        await plain.xreadgroup("GROUP", CONSUMER_GROUP, "probe", "COUNT", 2, "STREAMS", stream, ">");
    }
  });

  it("spreads the streams over every master", async () => {
    expect([...(await mastersOf(streams))].sort()).toEqual([...cluster.masters].sort());
  });

  for (const connection of ["plain", "pipelined"] as const) {
    it(`reads each stream's length, lag and pending, all at once (${connection} connection)`, async () => {
      const redis = connection === "plain" ? plain : pipelined;
      const infos = await Promise.all(
        streams.map((stream) => readStreamInfo(redis, stream, { withStream: true })),
      );
      infos.forEach((info, p) => {
        const read = p % 2 === 0 ? Math.min(2, p + 1) : 0;
        expect(info?.length).toBe(p + 1);
        expect(workerGroup(info!)).toMatchObject({ pending: read, lag: p + 1 - read });
        expect(info?.stream?.length).toBe(p + 1);
      });
    });
  }

  it("answers null for a stream that does not exist", async () => {
    expect(await readStreamInfo(pipelined, "fan-out:{nowhere}:ops")).toBeNull();
  });
});

describe("readIssuedCounts and readAvailable over keys on every master", () => {
  const couponIds = Array.from({ length: 12 }, (_, i) => `cpn_fanout${i}`);
  const productIds = Array.from({ length: 12 }, (_, i) => `prd_fanout${i}`);

  beforeAll(async () => {
    for (const [i, id] of couponIds.entries()) {
      await writeCouponState(plain, keys, { id, quantity: 100, startsAt: null, endsAt: null });
      await plain.hincrby(keys.couponState(id), "issued", i * 3);
    }
    for (const [i, id] of productIds.entries())
      await writeProductState(plain, keys, { id, price: 500, stock: 40 + i });
  });

  it("spreads the coupons and the products over every master", async () => {
    const couponMasters = await mastersOf(couponIds.map((id) => keys.couponState(id)));
    const productMasters = await mastersOf(productIds.map((id) => keys.productState(id)));
    expect(couponMasters.size).toBe(3);
    expect(productMasters.size).toBe(3);
  });

  for (const connection of ["plain", "pipelined"] as const) {
    it(`reads every coupon's issued count and every product's stock (${connection} connection)`, async () => {
      const redis = connection === "plain" ? plain : pipelined;
      expect(await readIssuedCounts(redis, keys, [...couponIds, "cpn_unknown"])).toEqual([
        ...couponIds.map((_, i) => i * 3),
        0,
      ]);
      expect(await readAvailable(redis, keys, [...productIds, "prd_unknown"])).toEqual([
        ...productIds.map((_, i) => 40 + i),
        null,
      ]);
      expect(await readIssuedCounts(redis, keys, [])).toEqual([]);
    });
  }
});
