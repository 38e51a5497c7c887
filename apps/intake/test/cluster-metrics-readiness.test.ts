// An intake on a real Redis Cluster (3 masters, no replicas, on free ports): /metrics reads the queue gauges of
// 16 partition streams spread over every master, and /readyz answers 200 while every master answers, 503 naming
// the master once one dies (with no replica, its slots stay unserved).
import { CONSUMER_GROUP } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import {
  createTestEnvironment,
  type RedisCluster,
  startRedisCluster,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import type { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { readinessKey } from "../src/health/readiness-checks.ts";
import { get, metricValue } from "./support/intake-test-kit.ts";

let cluster: RedisCluster;
let env: TestEnvironment;
let app: FastifyInstance;
let redis: ScriptedRedis;

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 0 });
  env = await createTestEnvironment("cluster-metrics", {
    shards: 1,
    env: { REDIS_URL: cluster.url, STREAM_PARTITIONS: "16" },
  });
  redis = createRedis(cluster.url, { name: "cluster-metrics-test" });
  await waitForRedis(redis);
  app = await buildApp(env.config, { logger: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  redis?.disconnect();
  await env?.cleanup();
  await cluster?.stop();
});

/** The port of the master serving a key, asked of the cluster itself. */
async function masterOf(key: string): Promise<number> {
  const slot = (await redis.cluster("KEYSLOT", key)) as number;
  const ranges = await redis.cluster("SLOTS");
  return ranges.find(([from, to]) => slot >= from && slot <= to)![2]![1];
}

describe("GET /metrics on a cluster", () => {
  it("reports every partition's length, lag and pending, the dead letters and the last reconcile", async () => {
    const streams = app.queueKeys.allStreams();
    expect(new Set(await Promise.all(streams.map(masterOf))).size).toBe(3);
    // Partition p holds p + 1 entries; the workers' group has taken one in every partition but the last.
    for (const [p, stream] of streams.entries()) {
      await redis.xgroup("CREATE", stream, CONSUMER_GROUP, "$", "MKSTREAM");
      for (let n = 0; n <= p; n++) await redis.xadd(stream, "*", "id", `op-${p}-${n}`);
      if (p < 15) await redis.xreadgroup("GROUP", CONSUMER_GROUP, "w", "COUNT", 1, "STREAMS", stream, ">");
    }
    await redis.xadd(app.queueKeys.deadLetters(), "*", "id", "pay_dead", "error", "x");
    await redis.hset(app.queueKeys.reconcileResult(), { drift: 4, unrepaired: 2, finishedAt: 1 });

    const response = await get(app, "/metrics");
    expect(response.statusCode).toBe(200);
    const text = response.body;
    for (let p = 0; p < 16; p++) {
      const partition = String(p);
      const taken = p < 15 ? 1 : 0;
      expect(metricValue(text, "floodgate_stream_length", { partition })).toBe(p + 1);
      expect(metricValue(text, "floodgate_stream_pending", { partition })).toBe(taken);
      expect(metricValue(text, "floodgate_stream_lag", { partition })).toBe(p + 1 - taken);
    }
    expect(metricValue(text, "floodgate_dead_letter_entries")).toBe(1);
    expect(metricValue(text, "floodgate_reconcile_drift_found")).toBe(4);
    expect(metricValue(text, "floodgate_reconcile_drift_unrepaired")).toBe(2);
  });

  it("reports each master's used memory and maxmemory apart (each refuses its own slots' writes when full)", async () => {
    // This test's own cluster: each master gets a maxmemory of its own, so a sum or a mix-up would show.
    const masters = (redis as Cluster).nodes("master");
    expect(masters).toHaveLength(3);
    const limits = new Map<string, number>();
    for (const [i, node] of masters.entries()) {
      const bytes = (200 + i) * 1024 * 1024;
      await node.config("SET", "maxmemory", String(bytes));
      limits.set(`${node.options.host}:${node.options.port}`, bytes);
    }
    const text = (await get(app, "/metrics")).body;
    for (const [node, bytes] of limits) {
      expect(metricValue(text, "floodgate_redis_maxmemory_bytes", { node })).toBe(bytes);
      expect(metricValue(text, "floodgate_redis_used_memory_bytes", { node })).toBeGreaterThan(100_000);
    }
    expect(text.match(/^floodgate_redis_used_memory_bytes\{/gm)).toHaveLength(3);
  });
});

describe("GET /readyz on a cluster", () => {
  it("is ready while every master answers", async () => {
    const response = await get(app, "/readyz");
    expect(response.json().checks).toEqual({ redis: "ok" });
    expect(response.statusCode).toBe(200);
  });

  it("is unavailable, naming the master, once a master is dead", async () => {
    // Not the master of the readiness write: the write alone would still succeed, the other masters' slots not.
    const writtenOn = await masterOf(readinessKey(app.config.redisPrefix));
    const victim = cluster.masters.find((port) => port !== writtenOn)!;
    await cluster.killNode(victim);
    const response = await get(app, "/readyz");
    expect(response.statusCode).toBe(503);
    expect(response.json().status).toBe("unavailable");
    expect(response.json().checks.redis).toContain(`master 127.0.0.1:${victim}:`);
  });
});
