// A Redis Cluster client fails some requests before any command reaches a node, with errors of its own rather
// than a command's; these are the store being unavailable (503 + Retry-After), never a bug (500). A private
// cluster (3 masters, no replicas), never the shared Redis.
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { type RedisCluster, startRedisCluster } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markRedisErrors, unavailableStore } from "../src/errors/store-errors.ts";

let cluster: RedisCluster;
/** Marked as the intake marks its request connection (redis-plugin.ts), auto-pipelined like it. */
let redis: ScriptedRedis;

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 0 });
  redis = markRedisErrors(createRedis(cluster.url, { autoPipelining: true, name: "store-errors-cluster" }));
  await waitForRedis(redis);
});

afterAll(async () => {
  redis?.disconnect();
  await cluster?.stop();
});

/** The master serving a key, as the client's slot map says. */
async function masterOf(key: string): Promise<string> {
  const slot = (await redis.cluster("KEYSLOT", key)) as number;
  const ranges = await redis.cluster("SLOTS");
  const range = ranges.find(([from, to]) => slot >= from && slot <= to);
  return `${range?.[2]?.[0]}:${range?.[2]?.[1]}`;
}

describe("a pipeline the cluster client fails whole", () => {
  it("is the store being unavailable: ioredis' own error, marked by where it came from", async () => {
    // ioredis refuses a pipeline whose keys' slots are in different groups of its slot map, before sending it,
    // and every caller in it gets that one error. In a failover this hits an auto-pipeline (every request's
    // commands are one) when MOVED replies change the map under it slot by slot; here it is made at once, with
    // keys of two masters.
    const first = "store-errors:{a}:k";
    let second = "";
    for (let i = 0; second === ""; i++) {
      const key = `store-errors:{b${i}}:k`;
      if ((await masterOf(key)) !== (await masterOf(first))) second = key;
    }
    const error = await redis
      .pipeline()
      .get(first)
      .get(second)
      .exec()
      .then(
        () => null,
        (failure: unknown) => failure,
      );
    expect(error).toBeInstanceOf(Error);
    expect(unavailableStore(error)).toBe("redis");
  });
});
