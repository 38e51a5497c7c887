// The Redis memory measure's parts on the test Redis: the used_memory reading, the per-payment division, and the
// wait for the workers' stream trim (here a trim the test makes).
import { randomBytes } from "node:crypto";
import { connectRedis, type RedisClient, testRedisUrl } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisMemoryLine } from "../src/redis-footprint/memory-per-payment.ts";
import {
  bytesPerAccepted,
  parseUsedMemory,
  readRedisMemory,
} from "../src/redis-footprint/redis-memory-reading.ts";
import { awaitStreamTrim, totalStreamLength } from "../src/redis-footprint/stream-trim-wait.ts";

const prefix = `fgb:memory_${randomBytes(4).toString("hex")}:`;
let redis: RedisClient;

beforeAll(() => {
  redis = connectRedis(testRedisUrl());
});

// The keys this file makes, deleted one by one: a prefix SCAN would walk the whole shared database.
const KEYS = ["one", "{p0}:ops", "{p1}:ops", "{p2}:ops"].map((key) => `${prefix}${key}`);

afterAll(async () => {
  await Promise.all(KEYS.map((key) => redis?.del(key)));
  redis?.disconnect();
});

describe("readRedisMemory and bytesPerAccepted", () => {
  it("reads used_memory and the key count as positive numbers", async () => {
    await redis.set(`${prefix}one`, "1", "EX", 600);
    const reading = await readRedisMemory(redis, 0);
    expect(reading.usedMemory).toBeGreaterThan(0);
    expect(Number.isInteger(reading.usedMemory)).toBe(true);
    expect(reading.keys).toBeGreaterThanOrEqual(1);
  });

  it("parses used_memory, not used_memory_rss or _peak", () => {
    const info = "# Memory\r\nused_memory_rss:9999\r\nused_memory:12345\r\nused_memory_peak:99999\r\n";
    expect(parseUsedMemory(info)).toBe(12_345);
    expect(() => parseUsedMemory("# Memory\r\n")).toThrow("no used_memory");
  });

  it("divides the growth by the accepted payments, whole bytes, null for none", () => {
    expect(bytesPerAccepted(1_000_000, 5_400_000, 10_000)).toBe(440);
    expect(bytesPerAccepted(1_000_000, 1_000_001, 3)).toBe(0);
    expect(bytesPerAccepted(2_000_000, 1_000_000, 1000)).toBe(-1000);
    expect(bytesPerAccepted(1, 2, 0)).toBeNull();
  });

  it("says it in one line with the TTLs that decide it", () => {
    const line = redisMemoryLine({
      usedBefore: 10_000_000,
      usedAfter: 14_400_000,
      bytesPerAccepted: 423,
      accepted: 10_430,
      keysBefore: 100,
      keysAfter: 20_960,
      streamEntriesLeft: 16,
      streamTrim: "stopped falling",
      idempotencyTtlSeconds: 86_400,
      statusTtlSeconds: 3600,
      settleMs: 1000,
      note: "",
    });
    expect(line).toContain(
      "Redis memory: 423 B per accepted payment once applied (10,430 payments, used_memory +4.4 MB; STATUS_TTL_SECONDS 3600, IDEMPOTENCY_TTL_SECONDS 86400)",
    );
    expect(line).toContain("whole database");
  });
});

describe("awaitStreamTrim", () => {
  it("returns the entries left once XLEN stops falling", async () => {
    const streams = [`${prefix}{p0}:ops`, `${prefix}{p1}:ops`];
    for (let i = 0; i < 10; i++) await redis.xadd(streams[i % 2]!, "*", "op", String(i));
    expect(await totalStreamLength(redis, streams)).toBe(10);
    // A trim in two steps, as the workers make one now and then.
    const trims = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await redis.xtrim(streams[0]!, "MAXLEN", 2);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await redis.xtrim(streams[1]!, "MAXLEN", 1);
    })();
    const wait = await awaitStreamTrim(redis, streams, { quietMs: 400, pollMs: 20, timeoutMs: 30_000 });
    await trims;
    expect(wait).toMatchObject({ entriesLeft: 3, ended: "stopped falling" });
  });

  it("returns at once when the streams are empty or absent, and at the bound when they never stop falling", async () => {
    expect(await awaitStreamTrim(redis, [`${prefix}{p9}:ops`], { quietMs: 60_000 })).toMatchObject({
      entriesLeft: 0,
      ended: "empty",
    });
    const stream = `${prefix}{p2}:ops`;
    await redis.xadd(stream, "*", "op", "x");
    expect(
      await awaitStreamTrim(redis, [stream], { quietMs: 60_000, timeoutMs: 200, pollMs: 20 }),
    ).toMatchObject({
      entriesLeft: 1,
      ended: "timeout",
    });
  });
});
