// The consumer lag and its sampler against a real stream and consumer group under a test prefix: entries added
// with explicit ids in the past, some acknowledged, some pending, some never delivered.
import { randomBytes } from "node:crypto";
import { connectRedis, type RedisClient, testRedisUrl } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lagFrom, oldestUnacknowledgedMs, readConsumerLag } from "../src/audits/consumer-lag.ts";
import { startLagSampler } from "../src/audits/lag-sampler.ts";

const prefix = `fgb:lag_${randomBytes(4).toString("hex")}:`;
const GROUP = "workers";
let redis: RedisClient;

beforeAll(() => {
  redis = connectRedis(testRedisUrl());
});

// The keys this file makes, deleted one by one: a prefix SCAN would walk the whole shared database.
const STREAMS = ["a", "b", "c", "d", "e", "f"].map((name) => `${prefix}{${name}}:ops`);

afterAll(async () => {
  await Promise.all(STREAMS.map((stream) => redis?.del(stream)));
  redis?.disconnect();
});

async function redisNowMs(): Promise<number> {
  const [seconds = 0, micros = 0] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** A stream with entries added `agesMs` ago (oldest first) and the workers' group created before them. */
async function streamWithAges(name: string, agesMs: number[]): Promise<{ stream: string; ids: string[] }> {
  const stream = `${prefix}{${name}}:ops`;
  const now = await redisNowMs();
  const ids = agesMs.map((age, i) => `${now - age}-${i}`);
  for (const id of ids) await redis.xadd(stream, id, "op", id);
  await redis.xgroup("CREATE", stream, GROUP, "0");
  return { stream, ids };
}

const deliver = (stream: string, count: number) =>
  redis.xreadgroup("GROUP", GROUP, "worker-1", "COUNT", count, "STREAMS", stream, ">");

describe("oldestUnacknowledgedMs and readConsumerLag", () => {
  it("report the oldest pending entry, then the oldest undelivered one, then none once all are acknowledged", async () => {
    const { stream, ids } = await streamWithAges("a", [50_000, 30_000, 10_000]);
    const idTime = (id: string) => Number(id.split("-")[0]);
    expect(await oldestUnacknowledgedMs(redis, stream, GROUP)).toBe(idTime(ids[0]!));

    await deliver(stream, 2);
    await redis.xack(stream, GROUP, ids[0]!);
    // The second is delivered but not acknowledged: pending, older than the undelivered third.
    expect(await oldestUnacknowledgedMs(redis, stream, GROUP)).toBe(idTime(ids[1]!));
    const pendingLag = await readConsumerLag(redis, [stream], GROUP);
    expect(pendingLag.stream).toBe(stream);
    expect(pendingLag.lagS).toBeGreaterThanOrEqual(30);
    expect(pendingLag.lagS).toBeLessThan(50);

    await redis.xack(stream, GROUP, ids[1]!);
    expect(await oldestUnacknowledgedMs(redis, stream, GROUP)).toBe(idTime(ids[2]!));

    await deliver(stream, 10);
    await redis.xack(stream, GROUP, ids[2]!);
    expect(await oldestUnacknowledgedMs(redis, stream, GROUP)).toBeNull();
    expect(await readConsumerLag(redis, [stream], GROUP)).toEqual({ lagS: 0, stream: null });
  });

  it("takes the largest lag over the streams, and counts every entry of a stream no worker has read", async () => {
    const quiet = await streamWithAges("b", [5_000]);
    await deliver(quiet.stream, 1);
    await redis.xack(quiet.stream, GROUP, quiet.ids[0]!);
    const behind = await streamWithAges("c", [20_000, 1_000]);
    const unread = `${prefix}{d}:ops`;
    await redis.xadd(unread, `${(await redisNowMs()) - 8_000}-0`, "op", "x");
    const missing = `${prefix}{e}:ops`;

    const lag = await readConsumerLag(redis, [quiet.stream, unread, behind.stream, missing], GROUP);
    expect(lag.stream).toBe(behind.stream);
    expect(lag.lagS).toBeGreaterThanOrEqual(20);
    expect(await oldestUnacknowledgedMs(redis, unread, GROUP)).not.toBeNull();
    expect(await oldestUnacknowledgedMs(redis, missing, GROUP)).toBeNull();
  });

  it("lagFrom: the largest age, never negative, none when nothing waits", () => {
    expect(lagFrom(10_000, ["x", "y", "z"], [9_000, null, 7_500])).toEqual({ lagS: 2.5, stream: "z" });
    expect(lagFrom(10_000, ["x"], [10_200])).toEqual({ lagS: 0, stream: "x" });
    expect(lagFrom(10_000, ["x", "y"], [null, null])).toEqual({ lagS: 0, stream: null });
  });
});

describe("startLagSampler", () => {
  it("samples the lag until stopped and reports its series and maximum", async () => {
    const { stream } = await streamWithAges("f", [40_000]);
    const sampler = startLagSampler({ redisUrl: testRedisUrl(), streams: [stream], periodMs: 20 });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const series = await sampler.stop();
    expect(series.failedSamples).toBe(0);
    expect(series.samplesS.length).toBeGreaterThan(0);
    expect(series.maxLagS).toBeGreaterThanOrEqual(40);
    expect(series.samplesS.every((lag) => lag >= 40)).toBe(true);
  });
});
