// Redis's used memory and maxmemory on /metrics (read at each scrape, per master: redis-memory-gauges.ts), on
// the app's route and on the registry alone, as the process's own metrics port (server.ts) serves it. The
// shared test Redis is only read here, never reconfigured; its maxmemory is whatever CONFIG GET says.
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { parseMemoryInfo } from "../src/scrape-gauges/redis-memory-gauges.ts";
import { get, metricValue } from "./support/intake-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;

beforeAll(async () => {
  env = await createTestEnvironment("redis-memory-metrics");
  app = await buildApp(env.config, { logger: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

/** What Redis itself says, read just before and after a scrape. */
async function usedMemory(): Promise<number> {
  return parseMemoryInfo(await (app.redis as Redis).info("memory")).usedBytes;
}

describe("Redis memory on /metrics", () => {
  it("serves used_memory and maxmemory of the one Redis, labelled with its address", async () => {
    const before = await usedMemory();
    const response = await get(app, "/metrics");
    const after = await usedMemory();
    expect(response.statusCode).toBe(200);
    const { host, port } = (app.statsRedis as Redis).options;
    const node = { node: `${host}:${port}` };
    const used = metricValue(response.body, "floodgate_redis_used_memory_bytes", node);
    // Redis allocates at least its own structures (about a megabyte), and the figure moves with other tests'
    // keys: it lies near what Redis says around the scrape.
    expect(used).toBeGreaterThan(100_000);
    expect(used).toBeGreaterThanOrEqual(Math.min(before, after) / 2);
    expect(used).toBeLessThanOrEqual(Math.max(before, after) * 2);
    const [, configured] = (await app.redis.config("GET", "maxmemory")) as [string, string];
    expect(metricValue(response.body, "floodgate_redis_maxmemory_bytes", node)).toBe(Number(configured));
  });

  it("reads them again at each collect, so the process's own metrics port serves them too", async () => {
    const text = await app.metrics.registry.metrics();
    expect(metricValue(text, "floodgate_redis_used_memory_bytes")).toBeGreaterThan(100_000);
    expect(text).toMatch(/^floodgate_redis_maxmemory_bytes\{node="[^"]+"\} \d+$/m);
  });

  it("parses INFO memory's figures and refuses an answer without them", () => {
    const info = "# Memory\r\nused_memory:1048576\r\nused_memory_human:1.00M\r\nmaxmemory:1073741824\r\n";
    expect(parseMemoryInfo(info)).toEqual({ usedBytes: 1_048_576, maxBytes: 1_073_741_824 });
    expect(() => parseMemoryInfo("# Memory\r\nused_memory:1\r\n")).toThrow(/maxmemory/);
  });
});
