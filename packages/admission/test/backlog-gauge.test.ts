// The workers' rate behind backpressure: measured only while they had work, so the first seconds of a burst
// after a quiet spell do not look like workers that cannot keep up.
import { CONSUMER_GROUP, ensureConsumerGroups, QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BacklogGauge, type BacklogSample, busyRate, stalledCount } from "../src/backlog-gauge.ts";

const sample = (at: number, acknowledged: number, backlog: number): BacklogSample => ({
  at,
  acknowledged,
  backlog,
});

describe("the workers' busy rate", () => {
  it("is unknown until the workers have had work for long enough", () => {
    // Idle for a while, then a burst: the idle seconds say nothing of what the workers can do.
    const samples = [
      sample(0, 100, 0),
      sample(500, 100, 0),
      sample(1000, 100, 5000),
      sample(1500, 900, 8000),
    ];
    expect(busyRate(samples)).toBeNull();
  });

  it("counts acknowledgements only over the latest busy stretch", () => {
    const samples = [
      sample(0, 0, 0),
      sample(1000, 0, 3000),
      sample(2000, 4000, 3000),
      sample(3000, 8000, 3000),
      sample(4000, 12_000, 3000),
    ];
    expect(busyRate(samples)).toBe(4000);
  });

  it("is zero when nothing works a lasting backlog off (no worker at all)", () => {
    const samples = [sample(0, 50, 2000), sample(1000, 50, 2500), sample(2500, 50, 3000)];
    expect(busyRate(samples)).toBe(0);
  });

  it("starts over when the acknowledged count goes back (Redis restarted empty): unknown, not zero", () => {
    // Before the restart the partitions' groups had read 120,000 entries; after it, new groups count from 0.
    // Read across the restart the workers look like they acknowledge nothing, which kept backpressure on.
    const samples = [
      sample(0, 118_000, 4000),
      sample(500, 120_000, 4000),
      sample(1000, 0, 1500),
      sample(1500, 400, 1500),
    ];
    expect(busyRate(samples)).toBeNull();
    samples.push(sample(2500, 1200, 1500), sample(3500, 2000, 1500));
    expect(busyRate(samples)).toBe(800);
  });

  it("is unknown with no backlog now", () => {
    expect(busyRate([sample(0, 0, 3000), sample(3000, 9000, 0)])).toBeNull();
    expect(busyRate([])).toBeNull();
  });
});

describe("the entries workers hold for stalled shards", () => {
  it("sums the counts the workers renewed lately, and forgets the others", () => {
    const now = 100_000;
    expect(
      stalledCount({ a: `120 ${now - 500}`, b: `30 ${now - 2000}`, dead: `999 ${now - 60_000}` }, now),
    ).toBe(150);
    expect(stalledCount({}, now)).toBe(0);
    expect(stalledCount({ odd: "not a count" }, now)).toBe(0);
  });
});

describe("the backlog read from Redis", () => {
  let env: TestEnvironment;
  let redis: ScriptedRedis;
  let keys: QueueKeys;

  beforeAll(async () => {
    env = await createTestEnvironment("backlog-gauge", { shards: 1, env: { STREAM_PARTITIONS: "2" } });
    redis = createRedis(env.config.redisUrl);
    await waitForRedis(redis);
    keys = new QueueKeys(env.config.redisPrefix, env.config.streamPartitions);
    await ensureConsumerGroups(redis, keys);
  });

  afterAll(async () => {
    await redis?.quit();
    await env?.cleanup();
  });

  it("never counts more than the streams hold, whatever lag XINFO reports (Redis 7.0 after an AOF restart)", async () => {
    const [stream] = keys.allStreams();
    for (const n of [1, 2, 3]) await redis.xadd(stream!, "*", "id", `op-${n}`, "m", "{}");
    await redis.xreadgroup("GROUP", CONSUMER_GROUP, "probe", "COUNT", 1, "STREAMS", stream!, ">");
    expect((await new BacklogGauge().read(redis, keys)).backlog).toBe(3); // 2 undelivered + 1 pending

    // The lag Redis reported after restarting from its AOF: entries "added" far beyond what the stream holds.
    const lastId = (await redis.xrevrange(stream!, "+", "-", "COUNT", 1))[0]?.[0];
    await redis.call("XSETID", stream!, lastId!, "ENTRIESADDED", 10_000, "MAXDELETEDID", "0-0");
    const groups = (await redis.xinfo("GROUPS", stream!)) as unknown[][];
    expect(groups[0]).toContain("lag");
    expect(Number(groups[0]![groups[0]!.indexOf("lag") + 1])).toBeGreaterThan(9000);

    expect((await new BacklogGauge().read(redis, keys)).backlog).toBe(3);
  });
});
