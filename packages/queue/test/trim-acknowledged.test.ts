// The trim script against the real Redis: it drops acknowledged entries and never one a consumer still holds.

import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { trimAcknowledged } from "@floodgate/redis-scripts";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CONSUMER_GROUP } from "../src/index.ts";

let env: TestEnvironment;
let redis: ScriptedRedis;
let stream: string;
let n = 0;

beforeAll(async () => {
  env = await createTestEnvironment("trim-acknowledged", { shards: 1 });
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
});

afterAll(async () => {
  await redis?.quit();
  await env?.cleanup();
});

beforeEach(async () => {
  stream = `${env.config.redisPrefix}{p0}:trim-${n++}`;
  await redis.xgroup("CREATE", stream, CONSUMER_GROUP, "0", "MKSTREAM");
});

const append = async (count: number) => {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await redis.xadd(stream, "*", "id", `op-${i}`, "m", "{}"))!);
  return ids;
};
const deliver = async (consumer: string, count: number) => {
  const reply = (await redis.xreadgroup(
    "GROUP",
    CONSUMER_GROUP,
    consumer,
    "COUNT",
    count,
    "STREAMS",
    stream,
    ">",
  )) as [string, [string, string[]][]][] | null;
  return (reply?.[0]?.[1] ?? []).map(([id]) => id);
};
const remaining = async () =>
  ((await redis.xrange(stream, "-", "+")) as [string, string[]][]).map(([id]) => id);
const pendingIds = async () =>
  ((await redis.xpending(stream, CONSUMER_GROUP, "-", "+", 1000)) as [string][]).map(([id]) => id);
const trim = (streamKey = stream) => trimAcknowledged.run(redis, { streamKey, group: CONSUMER_GROUP });

describe("trimAcknowledged", () => {
  it("keeps every unacknowledged entry and drops the acknowledged ones older than it", async () => {
    const ids = await append(10);
    expect(await deliver("c1", 6)).toEqual(ids.slice(0, 6));
    await redis.xack(stream, CONSUMER_GROUP, ids[0]!, ids[1]!, ids[3]!, ids[5]!); // ids[2], ids[4] stay pending

    const { removed } = await trim();

    expect(removed).toBe(2);
    expect(await remaining()).toEqual(ids.slice(2));
    expect(await pendingIds()).toEqual([ids[2], ids[4]]);
  });

  it("keeps entries pending for a consumer that died, however old, and entries not yet delivered", async () => {
    const ids = await append(8);
    await deliver("dead", 2); // never acknowledged: its worker was killed
    expect(await deliver("alive", 4)).toEqual(ids.slice(2, 6));
    await redis.xack(stream, CONSUMER_GROUP, ...ids.slice(2, 6));

    expect(await trim()).toEqual({ removed: 0 });
    expect(await remaining()).toEqual(ids);
    expect(await pendingIds()).toEqual(ids.slice(0, 2));
  });

  it("when nothing is pending, trims what was delivered and never an undelivered entry", async () => {
    const ids = await append(6);
    await deliver("c1", 4);
    await redis.xack(stream, CONSUMER_GROUP, ...ids.slice(0, 4));

    await trim();

    const left = await remaining();
    expect(left).toEqual(expect.arrayContaining(ids.slice(4)));
    expect(left.filter((id) => ids.slice(0, 3).includes(id))).toEqual([]);
  });

  it("trims nothing before anything was delivered, and answers 0 for a missing stream", async () => {
    const ids = await append(3);
    expect(await trim()).toEqual({ removed: 0 });
    expect(await remaining()).toEqual(ids);
    expect(await trim(`${env.config.redisPrefix}{p0}:missing`)).toEqual({ removed: 0 });
  });
});
