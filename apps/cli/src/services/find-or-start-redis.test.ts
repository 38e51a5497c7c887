import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { findOrStartRedis } from "./find-or-start-redis.ts";

const silent = () => {};
const tempDirs: string[] = [];

afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "floodgate-redis-test-"));
  tempDirs.push(dir);
  return dir;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen({ port: 0, host: "127.0.0.1" }, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function answers(url: string): Promise<boolean> {
  const redis = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  redis.on("error", () => {});
  try {
    await redis.connect();
    return (await redis.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

describe("findOrStartRedis", () => {
  it("returns the Redis that answers at the URL unchanged, starting nothing", async () => {
    const found = await findOrStartRedis({
      redisUrl: "redis://127.0.0.1:6379",
      dataDir: await tempDir(),
      log: silent,
    });
    expect(found.redisUrl).toBe("redis://127.0.0.1:6379");
    expect(found.started).toBe(false);
    await found.stop();
    expect(await answers("redis://127.0.0.1:6379")).toBe(true);
  });

  it("starts redis-server with AOF on a free port, keeps data in dataDir across restarts, and stops it", async () => {
    const dataDir = await tempDir();
    const redisUrl = `redis://127.0.0.1:${await freePort()}`;
    const lines: string[] = [];

    const first = await findOrStartRedis({ redisUrl, dataDir, log: (line) => lines.push(line) });
    try {
      expect(first.started).toBe(true);
      expect(first.redisUrl).toBe(redisUrl);
      expect(lines).toHaveLength(1);
      const redis = new Redis(first.redisUrl);
      expect(await redis.config("GET", "appendonly")).toEqual(["appendonly", "yes"]);
      expect(await redis.config("GET", "appendfsync")).toEqual(["appendfsync", "everysec"]);
      expect(await redis.config("GET", "maxmemory-policy")).toEqual(["maxmemory-policy", "noeviction"]);
      await redis.set("accepted", "payment-1");
      redis.disconnect();
    } finally {
      await first.stop();
    }
    expect(await answers(redisUrl)).toBe(false);

    const second = await findOrStartRedis({ redisUrl, dataDir, log: silent });
    try {
      const redis = new Redis(second.redisUrl);
      expect(await redis.get("accepted")).toBe("payment-1");
      redis.disconnect();
    } finally {
      await second.stop();
    }
    expect(await answers(redisUrl)).toBe(false);
  });
});
