// hashSlot must name the slot the server does: checked against known values and, in the cluster project,
// against CLUSTER KEYSLOT for keys with and without a tag (every kind of key Floodgate writes:
// packages/queue/test/queue-keys.test.ts).
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashSlot } from "../src/hash-slot.ts";
import { createRedis, type ScriptedRedis, waitForRedis } from "../src/index.ts";

const onCluster = process.env.FLOODGATE_TEST_REDIS === "cluster";
let env: TestEnvironment;
let redis: ScriptedRedis;

beforeAll(async () => {
  env = await createTestEnvironment("hash-slot", { shards: 1 });
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
});

afterAll(async () => {
  await redis?.quit();
  await env?.cleanup();
});

describe("hashSlot", () => {
  it("gives the slots Redis documents, and hashes a key's {tag} alone when it has a non-empty one", () => {
    expect(hashSlot("123456789")).toBe(0x31c3); // the CRC16 XMODEM check value, below 16384
    expect(hashSlot("foo")).toBe(12182);
    expect(hashSlot("{user1000}.following")).toBe(hashSlot("user1000"));
    expect(hashSlot("foo{{bar}}zap")).toBe(hashSlot("{bar"));
  });

  // One Redis has no CLUSTER KEYSLOT: there the known values above stand for it.
  it(`names the slot ${onCluster ? "CLUSTER KEYSLOT names" : "Redis would"}, tagged or not`, async () => {
    const samples = ["fgt:hash-slot:{p3}:ops", "no-tag-at-all", "ünïcödé{ключ}", "foo{}{bar}"];
    for (const key of samples) {
      expect(hashSlot(key), key).toBeLessThan(16_384);
      if (onCluster) expect(hashSlot(key), key).toBe(Number(await redis.cluster("KEYSLOT", key)));
    }
  });
});
