// Reclaiming entries of dead consumers, finishing and acknowledging them, against the real Redis.

import { createRedis, execOrThrow, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  CONSUMER_GROUP,
  claimStaleEntries,
  ensureConsumerGroups,
  finishOperations,
  keepEntriesClaimed,
  leaveConsumerGroup,
  QueueKeys,
} from "../src/index.ts";

const STALE_MS = 60_000; // entries are made stale by setting their idle time (XCLAIM IDLE), not by waiting

let env: TestEnvironment;
let redis: ScriptedRedis;
let keys: QueueKeys;
let stream: string;
let n = 0;

beforeAll(async () => {
  env = await createTestEnvironment("stream-consumer", { shards: 1 });
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
});

afterAll(async () => {
  await redis?.quit();
  await env?.cleanup();
});

beforeEach(async () => {
  keys = new QueueKeys(`${env.config.redisPrefix}t${n++}:`, 1);
  stream = keys.stream(0);
  await ensureConsumerGroups(redis, keys);
});

const append = async (count: number) => {
  const pipeline = redis.pipeline();
  for (let i = 0; i < count; i++) pipeline.xadd(stream, "*", "id", `op-${i}`, "m", "{}");
  return ((await pipeline.exec()) ?? []).map(([, id]) => id as string);
};
const deliver = (consumer: string, count: number) =>
  redis.xreadgroup("GROUP", CONSUMER_GROUP, consumer, "COUNT", count, "STREAMS", stream, ">");
/** Makes entries look abandoned long ago by `consumer`; without JUSTID this also counts one more delivery. */
const makeStale = (consumer: string, ids: string[], countDelivery: boolean) =>
  redis.xclaim(
    stream,
    CONSUMER_GROUP,
    consumer,
    0,
    ...ids,
    "IDLE",
    STALE_MS * 10,
    ...(countDelivery ? [] : ["JUSTID"]),
  );
const owners = async () =>
  Object.fromEntries(
    (
      (await redis.xpending(stream, CONSUMER_GROUP, "-", "+", 10_000)) as [string, string, number, number][]
    ).map(([id, consumer, , deliveries]) => [id, { consumer, deliveries }]),
  );

describe("claimStaleEntries", () => {
  it("claims a dead consumer's entries and reports how often each was delivered", async () => {
    const ids = await append(5);
    await deliver("dead", 5);
    await makeStale("dead", ids, true); // delivered twice by now

    const claimed = await claimStaleEntries(redis, keys, "claimer", STALE_MS, 100);

    expect(claimed.map((e) => [e.entryId, e.operationId, e.deliveries])).toEqual(
      ids.map((id, i) => [id, `op-${i}`, 3]),
    );
    expect(Object.values(await owners()).every((o) => o.consumer === "claimer")).toBe(true);
  });

  it("leaves entries a live consumer is working on", async () => {
    const ids = await append(4);
    await deliver("alive", 2);
    await deliver("dead", 2);
    await makeStale("dead", ids.slice(2), false);

    const claimed = await claimStaleEntries(redis, keys, "claimer", STALE_MS, 100);

    expect(claimed.map((e) => e.entryId)).toEqual(ids.slice(2));
    const pending = await owners();
    expect([pending[ids[0]!]?.consumer, pending[ids[1]!]?.consumer]).toEqual(["alive", "alive"]);
  });

  it("reaches stale entries behind more than COUNT x 10 entries a live consumer holds", async () => {
    // A worker holding thousands of entries for a shard that is down keeps them fresh; a dead worker's entries
    // further along the same partition must still be reclaimed (XAUTOCLAIM scans COUNT x 10 per call).
    const ids = await append(1250);
    await deliver("holder", 1200);
    await deliver("dead", 50);
    await makeStale("dead", ids.slice(1200), false);

    const claimed = await claimStaleEntries(redis, keys, "claimer", STALE_MS, 100);

    expect(claimed.map((e) => e.entryId)).toEqual(ids.slice(1200));
  });

  it("reports the right delivery count when the claimer already owns entries in the claimed range", async () => {
    const ids = await append(5);
    await deliver("dead", 5);
    await redis.xclaim(stream, CONSUMER_GROUP, "claimer", 0, ids[1]!, ids[3]!, "JUSTID"); // held, fresh
    const stale = [ids[0]!, ids[2]!, ids[4]!];
    await makeStale("dead", stale, true); // delivered twice

    const claimed = await claimStaleEntries(redis, keys, "claimer", STALE_MS, 100);

    expect(claimed.map((e) => [e.entryId, e.deliveries])).toEqual(stale.map((id) => [id, 3]));
  });
});

describe("keepEntriesClaimed", () => {
  it("keeps held entries from being claimed, without counting a delivery", async () => {
    const ids = await append(3);
    await deliver("holder", 3);
    await makeStale("holder", ids, false);

    await keepEntriesClaimed(
      redis,
      keys,
      "holder",
      ids.map((entryId) => ({ partition: 0, entryId, operationId: "", payload: "", deliveries: 1 })),
    );

    expect(await claimStaleEntries(redis, keys, "claimer", STALE_MS, 100)).toEqual([]);
    expect(Object.values(await owners())).toEqual(ids.map(() => ({ consumer: "holder", deliveries: 1 })));
  });
});

describe("leaveConsumerGroup", () => {
  const consumerNames = async () =>
    ((await redis.xinfo("CONSUMERS", stream, CONSUMER_GROUP)) as string[][]).map((fields) => fields[1]);

  it("removes a consumer that holds nothing and keeps one that still holds entries", async () => {
    const ids = await append(2);
    await deliver("done", 1);
    await redis.xack(stream, CONSUMER_GROUP, ids[0]!);
    await deliver("busy", 1);
    expect(await consumerNames()).toEqual(expect.arrayContaining(["done", "busy"]));

    expect(await leaveConsumerGroup(redis, keys, "done")).toBe(1);
    expect(await leaveConsumerGroup(redis, keys, "busy")).toBe(0);

    expect(await consumerNames()).toEqual(["busy"]);
    const pending = (await redis.xpending(stream, CONSUMER_GROUP)) as [number, ...unknown[]];
    expect(pending[0]).toBe(1); // the busy consumer's entry is still pending, so it can still be reclaimed
  });
});

describe("finishing operations", () => {
  it("acknowledges a batch larger than Lua can unpack at once (a backlog held for a shard), all of it", async () => {
    const ids = await append(9000);
    await deliver("finisher", 9000);
    const acknowledged = await finishOperations(
      redis,
      keys,
      {
        statuses: [],
        acknowledged: ids.map((entryId) => ({
          partition: 0,
          entryId,
          operationId: "",
          payload: "{}",
          deliveries: 1,
        })),
      },
      60,
    );
    expect(acknowledged).toBe(9000);
    expect(((await redis.xpending(stream, CONSUMER_GROUP)) as [number])[0]).toBe(0);
  });
});

describe("execOrThrow", () => {
  it("throws, naming the step and the first reason, when any command of a pipeline failed", async () => {
    const key = `${keys.stream(0)}:not-a-counter`;
    const pipeline = redis.pipeline().set(key, "x").incr(key).get(key);
    await expect(execOrThrow(pipeline, "counting")).rejects.toThrow(
      /^counting: 1 of 3 Redis commands failed \(first: ERR value is not an integer/,
    );
    expect(await execOrThrow(redis.pipeline().get(key), "reading")).toEqual(["x"]);
  });
});
