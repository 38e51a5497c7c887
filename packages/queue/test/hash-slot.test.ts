// hashSlot must name the slot the server does: checked against known values and, in the cluster project,
// against CLUSTER KEYSLOT for every kind of key Floodgate writes.
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashSlot } from "../src/hash-slot.ts";
import { createRedis, QueueKeys, type ScriptedRedis, waitForRedis } from "../src/index.ts";

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
  it(`names the slot ${onCluster ? "CLUSTER KEYSLOT names" : "Redis would"}, for every kind of Floodgate key`, async () => {
    const keys = new QueueKeys("fgt:hash-slot:", 16);
    const samples = [
      ...keys.allStreams(),
      keys.couponState("cpn_01KAAAAAAAAAAAAAAAAAAAAAAA"),
      keys.productReservations("prd_01KAAAAAAAAAAAAAAAAAAAAAAA"),
      keys.unpaidUnits("prd_01KAAAAAAAAAAAAAAAAAAAAAAA", "alice"),
      keys.deadLetters(),
      "no-tag-at-all",
      "ünïcödé{ключ}",
      "foo{}{bar}",
    ];
    for (const key of samples) {
      expect(hashSlot(key), key).toBeLessThan(16_384);
      if (onCluster) expect(hashSlot(key), key).toBe(Number(await redis.cluster("KEYSLOT", key)));
    }
    // A partition's keys share its stream's slot, whatever follows the tag.
    expect(hashSlot(keys.unpaidUnits("prd_x", "alice"))).toBe(
      hashSlot(keys.stream(keys.partitionForUser("alice"))),
    );
  });
});
