// The saturation comparison unlinks what each stage left (stage-keys.ts): a Floodgate's payments' status hashes
// and a BullMQ peer's jobs of that stage, never the system's other keys or another stage's jobs.
import { randomBytes } from "node:crypto";
import { newOperationId } from "@floodgate/domain";
import { idempotentTailOf, QueueKeys } from "@floodgate/queue";
import { connectRedis, type RedisClient, testRedisUrl } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bullmqJobKeys } from "../src/payments/peers/bullmq-peer.ts";
import { clearStageKeys, floodgateStageKeys } from "../src/payments/saturation/stage-keys.ts";

let redis: RedisClient;

beforeAll(() => {
  redis = connectRedis(testRedisUrl());
});

afterAll(() => redis?.disconnect());

const exists = async (keys: string[]) =>
  Promise.all(keys.map(async (key) => (await redis.exists(key)) === 1));

describe("clearStageKeys", () => {
  it("unlinks a Floodgate's payment statuses and leaves its streams, buckets and another prefix's", async () => {
    const id = randomBytes(4).toString("hex");
    const prefix = `fgb:stagekeys_${id}:`;
    const keys = new QueueKeys(prefix, 16);
    const statuses = Array.from({ length: 20 }, (_, n) => {
      const operationId = newOperationId(
        "payment",
        n,
        Date.now(),
        idempotentTailOf("payment", `u${n}`, `k${n}`),
      );
      return keys.status(keys.partitionForMintedOperation(operationId), operationId);
    });
    const kept = [
      keys.stream(3),
      `${prefix}{p3}:rl:payments:u:u3`,
      `fgb:stagekeys_${id}x:{p3}:st:0123456789ABCDEF`,
    ];
    await Promise.all([...statuses, ...kept].map((key) => redis.set(key, "1", "EX", 600)));
    try {
      expect(await clearStageKeys(redis, floodgateStageKeys(prefix))).toBe(statuses.length);
      expect(await exists(statuses)).toEqual(statuses.map(() => false));
      expect(await exists(kept)).toEqual([true, true, true]);
    } finally {
      await redis.del(...kept);
    }
  });

  it("unlinks a BullMQ peer's jobs of one stage, not its queue's own keys or another stage's jobs", async () => {
    const id = randomBytes(4).toString("hex");
    const peerPrefix = `fgb:stagekeys_${id}-bullmq:`;
    const jobKey = (jobId: string) => bullmqJobKeys(peerPrefix, jobId).slice(0, -1);
    const stage = [1, 2, 3].map((n) => jobKey(`stamp-r1-bullmq-1-${n}`));
    const kept = [jobKey("stamp-r10-bullmq-1-1"), jobKey("stamp-r2-bullmq-1-1"), jobKey("meta")];
    await Promise.all([...stage, ...kept].map((key) => redis.set(key, "1", "EX", 600)));
    try {
      expect(await clearStageKeys(redis, bullmqJobKeys(peerPrefix, "stamp-r1-bullmq-"))).toBe(stage.length);
      expect(await exists(stage)).toEqual([false, false, false]);
      expect(await exists(kept)).toEqual([true, true, true]);
    } finally {
      await redis.del(...kept);
    }
  });
});
