// `start` with REDIS_URL naming a Redis Cluster (a private 3+3 one): it uses the cluster, never starts a Redis in
// its place, and reads what an accepted request survives from the cluster's masters.
import { freePort, type RedisCluster, startRedisCluster } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findOrStartRedis } from "./find-or-start-redis.ts";
import { durabilityLine, readRedisDurability } from "./redis-durability.ts";

let cluster: RedisCluster;

beforeAll(async () => {
  cluster = await startRedisCluster();
});

afterAll(async () => {
  await cluster?.stop();
});

describe("start with a redis+cluster:// REDIS_URL", () => {
  it("uses the cluster, its URL unchanged, and starts nothing", async () => {
    const lines: string[] = [];
    const found = await findOrStartRedis({
      redisUrl: cluster.url,
      dataDir: "/nonexistent/never-used",
      log: (line) => lines.push(line),
    });
    expect(found).toMatchObject({ redisUrl: cluster.url, started: false });
    expect(lines.join("\n")).toContain("using the Redis Cluster at 127.0.0.1:");
    await found.stop();
  });

  it("refuses a cluster that does not answer, naming REDIS_URL, instead of starting a Redis", async () => {
    const url = `redis+cluster://127.0.0.1:${await freePort()}`;
    await expect(
      findOrStartRedis({ redisUrl: url, dataDir: "/nonexistent/never-used", log: () => {} }),
    ).rejects.toThrow(/REDIS_URL: the Redis Cluster at 127\.0\.0\.1:\d+ is not ready/);
  });

  it("reads the masters' persistence: the fixture's keep nothing, which start warns about", async () => {
    const durability = await readRedisDurability(cluster.url);
    expect(durability).toMatchObject({ appendonly: "no", save: "" });
    expect(durabilityLine(durability).warn).toBe(true);
  });
});
