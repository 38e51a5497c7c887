// Every kind of key Floodgate writes is in the slot hashSlot names (the server's, CLUSTER KEYSLOT, in the
// cluster project), and a partition's keys share its stream's slot.
import { createRedis, hashSlot, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QueueKeys } from "../src/index.ts";

const onCluster = process.env.FLOODGATE_TEST_REDIS === "cluster";
let env: TestEnvironment;
let redis: ScriptedRedis;

beforeAll(async () => {
  env = await createTestEnvironment("queue-keys", { shards: 1 });
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
});

afterAll(async () => {
  await redis?.quit();
  await env?.cleanup();
});

describe("QueueKeys", () => {
  // One Redis has no CLUSTER KEYSLOT: there hashSlot's own test (known values) stands for it.
  it(`names keys in the slot ${onCluster ? "CLUSTER KEYSLOT names" : "hashSlot names"}, for every kind of Floodgate key`, async () => {
    const keys = new QueueKeys("fgt:hash-slot:", 16);
    const samples = [
      ...keys.allStreams(),
      keys.couponState("cpn_01KAAAAAAAAAAAAAAAAAAAAAAA"),
      keys.productReservations("prd_01KAAAAAAAAAAAAAAAAAAAAAAA"),
      keys.unpaidUnits("prd_01KAAAAAAAAAAAAAAAAAAAAAAA", "alice"),
      keys.deadLetters(),
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
