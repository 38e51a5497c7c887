// A client address's bucket, the side command of its own (take-token-1.lua), against the real Redis: the same
// GCRA as the user's bucket, one key in a slot of its own, and a request that found it empty charged anyway (the
// route's script beside it may have accepted), owing at most one burst.
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdmissionKeys, bucketArgs, takeAddressToken } from "../src/index.ts";

let env: TestEnvironment;
let redis: ScriptedRedis;
let keys: AdmissionKeys;

beforeAll(async () => {
  env = await createTestEnvironment("address-bucket", { shards: 1 });
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  keys = new AdmissionKeys(new QueueKeys(env.config.redisPrefix, env.config.streamPartitions));
});

afterAll(async () => {
  await redis?.quit();
  await env?.cleanup();
});

// One token per 10 s: no token comes back while a test runs unless the machine stalls that long.
const SLOW = bucketArgs({ rate: 0.1, burst: 3 });

describe("an address's bucket", () => {
  it("is one key under a hash tag of the address alone", () => {
    expect(keys.ipBucket("payments", "198.51.100.7")).toBe(
      `${env.config.redisPrefix}{ip-198.51.100.7}:rl:payments`,
    );
  });

  it("lets a whole burst through when its takes run back to back, whatever the clock's fraction of a millisecond", async () => {
    // Two takes in one write run microseconds apart. The bucket's time is stored in ms with a fraction; written
    // with Lua's tostring (14 significant digits: a tenth of a ms for an epoch time) it could be read back up
    // to 0.05 ms late, and the second take of a full bucket of 2 was then refused (a spurious overshoot that
    // showed once enqueues were batched and the address takes went out back to back).
    const burstOfTwo = bucketArgs({ rate: 0.5, burst: 2 });
    const refused: number[] = [];
    for (let i = 0; i < 60; i++) {
      const key = keys.ipBucket("deposits", `203.0.113.${i}`);
      const [first, second] = await Promise.all([
        takeAddressToken(redis, key, burstOfTwo),
        takeAddressToken(redis, key, burstOfTwo),
      ]);
      if (!first.ok || !second.ok) refused.push(i);
    }
    expect(refused).toEqual([]);
  });

  it("lets the burst through, counting down, then says it is empty", async () => {
    const key = keys.ipBucket("payments", "198.51.100.1");
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await takeAddressToken(redis, key, SLOW));
    expect(answers.map((a) => [a.ok, a.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    // Full again after the three tokens taken, at one per 10 s.
    expect(answers[2]!.resetMs).toBeGreaterThan(29_000);
    expect(answers[2]!.resetMs).toBeLessThanOrEqual(30_001); // Redis rounds up
  });

  it("charges a request that found it empty, so the address's next requests wait for it, up to one burst of debt", async () => {
    const key = keys.ipBucket("payments", "198.51.100.2");
    for (let i = 0; i < 3; i++) expect((await takeAddressToken(redis, key, SLOW)).ok).toBe(true);
    const resets = [];
    for (let i = 0; i < 5; i++) {
      const answer = await takeAddressToken(redis, key, SLOW);
      expect(answer.ok).toBe(false);
      resets.push(answer.resetMs);
    }
    // Each charge owes one more interval (10 s)... (bounds with seconds of slack: on a loaded machine the calls
    // may be far apart, and the bucket refills meanwhile; an uncharged refusal would owe nothing more)
    expect(resets[0]).toBeGreaterThan(35_000);
    expect(resets[1]! - resets[0]!).toBeGreaterThan(9_000);
    expect(resets[2]! - resets[1]!).toBeGreaterThan(9_000);
    // ...until the bucket owes one burst (3 tokens) past empty: 60 s to be full again, never more.
    expect(Math.max(...resets)).toBeLessThanOrEqual(60_000);
    expect(resets[4]).toBeGreaterThan(55_000);
    expect(Number(await redis.pttl(key))).toBeGreaterThan(55_000);
  });

  it("cuts a replaced policy's debt to an empty bucket of the new one", async () => {
    const key = keys.ipBucket("payments", "198.51.100.3");
    // One token per 100 s, burst 5: five taken leave the bucket 500 s from full.
    const tight = bucketArgs({ rate: 0.01, burst: 5 });
    for (let i = 0; i < 5; i++) expect((await takeAddressToken(redis, key, tight)).ok).toBe(true);
    // Restored to 100/s, burst 10 (full in 100 ms): far more than one burst of its debt is an old policy's.
    const restored = await takeAddressToken(redis, key, bucketArgs({ rate: 100, burst: 10 }));
    expect(restored.resetMs).toBeLessThanOrEqual(200);
  });

  it("takes one token per call from a fresh bucket under any burst", async () => {
    const key = keys.ipBucket("room-joins", "198.51.100.4");
    const answer = await takeAddressToken(redis, key, bucketArgs({ rate: 20, burst: 50 }));
    expect(answer).toMatchObject({ ok: true, remaining: 49 });
    expect([50, 51]).toContain(answer.resetMs); // one interval, rounded up
  });
});
