// The dead letters a previous release left in the untagged stream (`<prefix>dead-letters`) move to the tagged
// one (`<prefix>{dlq}:dead-letters`), against the real Redis: all at once with their ids when the tagged stream
// does not exist yet, entry by entry (keeping when each was dead-lettered) when it does; and readers see them.

import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adoptLegacyDeadLetters, legacyDeadLetterStream, QueueKeys, readDeadLetters } from "../src/index.ts";

let env: TestEnvironment;
let redis: ScriptedRedis;
let n = 0;

beforeAll(async () => {
  env = await createTestEnvironment("legacy-dead-letters", { shards: 1 });
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
});

afterAll(async () => {
  await redis?.quit();
  await env?.cleanup();
});

/** Keys of their own per test: a prefix under the file's. */
const freshKeys = () => new QueueKeys(`${env.config.redisPrefix}t${n++}:`, 4);

/** An entry as the previous release's worker wrote it. */
const legacyEntry = (keys: QueueKeys, operationId: string, id = "*") =>
  redis.xadd(
    legacyDeadLetterStream(keys),
    id,
    "id",
    operationId,
    "partition",
    "1",
    "entryId",
    "1700000000000-0",
    "deliveries",
    "5",
    "reason",
    "refused",
    "firstFailedAt",
    "1700000000000",
    "m",
    "{}",
  ) as Promise<string>;

const letters = async (keys: QueueKeys) => {
  const all = [];
  for await (const letter of readDeadLetters(redis, keys)) all.push(letter);
  return all;
};

describe("adoptLegacyDeadLetters", () => {
  it("moves nothing when the old stream is empty or missing", async () => {
    const keys = freshKeys();
    expect(await adoptLegacyDeadLetters(redis, keys)).toBe(0);
    expect(await redis.exists(keys.deadLetters())).toBe(0);
  });

  it("renames the old stream when the tagged one does not exist: every entry keeps its id", async () => {
    const keys = freshKeys();
    const ids = [await legacyEntry(keys, "pay_a"), await legacyEntry(keys, "pay_b")];
    expect(keys.deadLetters()).toBe(`${keys.prefix}{dlq}:dead-letters`);
    expect(await adoptLegacyDeadLetters(redis, keys)).toBe(2);
    expect(await redis.exists(legacyDeadLetterStream(keys))).toBe(0);
    const moved = await letters(keys);
    expect(moved.map((letter) => [letter.deadLetterId, letter.operationId])).toEqual([
      [ids[0], "pay_a"],
      [ids[1], "pay_b"],
    ]);
    expect(moved[0]).toMatchObject({
      partition: 1,
      deliveries: 5,
      reason: "refused",
      firstFailedAt: 1700000000000,
    });
    expect(moved[0]!.deadLetteredAt).toBe(Number(ids[0]!.split("-")[0]));
    expect(await adoptLegacyDeadLetters(redis, keys)).toBe(0);
  });

  it("appends entry by entry when the tagged stream exists, each keeping when it was dead-lettered", async () => {
    const keys = freshKeys();
    const old = await legacyEntry(keys, "pay_old", "1000-0");
    await redis.xadd(keys.deadLetters(), "*", "id", "pay_new", "partition", "2", "m", "{}");
    // More than one page of the old stream.
    for (let i = 0; i < 600; i++) await legacyEntry(keys, `pay_bulk_${i}`);
    expect(await adoptLegacyDeadLetters(redis, keys)).toBe(601);
    expect(await redis.xlen(legacyDeadLetterStream(keys))).toBe(0);
    const all = await letters(keys);
    expect(all).toHaveLength(602);
    expect(all[0]!.operationId).toBe("pay_new");
    const moved = all.find((letter) => letter.operationId === "pay_old")!;
    expect(moved.deadLetterId).not.toBe(old);
    expect(moved.deadLetteredAt).toBe(1000);
    expect(moved).toMatchObject({
      partition: 1,
      reason: "refused",
      firstFailedAt: 1700000000000,
      message: "{}",
    });
    expect(new Set(all.map((letter) => letter.operationId)).size).toBe(602);
  });
});
