// The rooms' event streams drained into the events feed: a pass takes a room's oldest entries, records the ones
// anyone wants, and then deletes exactly those from the stream (a trim up to the last one read): an entry the
// pass did not take stays for the next, whatever its type. Against a real Redis and a real shard.
import { AdmissionKeys } from "@floodgate/admission";
import { createKysely, type ShardDatabase } from "@floodgate/db";
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drainRoomEvents, ROOM_EVENTS_PER_PASS, successorId } from "../src/events/room-event-drain.ts";

let env: TestEnvironment;
let redis: ScriptedRedis;
let keys: AdmissionKeys;
let shard: Kysely<ShardDatabase>;

beforeAll(async () => {
  env = await createTestEnvironment("room-event-drain", { shards: 1 });
  redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  keys = new AdmissionKeys(new QueueKeys(env.config.redisPrefix, env.config.streamPartitions));
  shard = createKysely<ShardDatabase>(env.config.shardUrls[0]!, { max: 1 });
});

afterAll(async () => {
  await redis?.quit();
  await shard?.destroy();
  await env?.cleanup();
});

/** Appends `count` ticket.admitted entries to the room's stream, as the room's scripts do; their ids. */
async function admissions(roomId: string, count: number): Promise<string[]> {
  const stream = keys.room(roomId).events;
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const at = Date.now();
    const id = await redis.xadd(
      stream,
      "*",
      ...["type", "ticket.admitted", "at", at, "ticketId", `${roomId}-t${i}`, "userId", `u${i}`],
      ...["expiresAt", at + 60_000],
    );
    ids.push(id!);
  }
  return ids;
}

const feedRows = async (type: string) =>
  (await sql<{ n: number }>`select count(*)::int as n from events where event_type = ${type}`.execute(shard))
    .rows[0]!.n;

describe("room event drain", () => {
  it("deletes what a pass read and leaves the entries beyond it for the next pass", async () => {
    await redis.sadd(keys.rooms(), "drop");
    const stream = keys.room("drop").events;
    await redis.xadd(stream, "*", "type", "room.queueing_started", "at", Date.now());
    const later = await admissions("drop", ROOM_EVENTS_PER_PASS);

    expect(await drainRoomEvents(redis, keys, shard, new Set())).toBe(ROOM_EVENTS_PER_PASS);
    // The pass's last entry was the one before the last admission: that one is all the stream holds.
    const left = await redis.xrange(stream, "-", "+");
    expect(left.map(([id]) => id)).toEqual([later.at(-1)]);
    expect(await feedRows("room.queueing_started")).toBe(1);
    // Nobody subscribes to ticket.admitted: taken and deleted, recorded nowhere.
    expect(await feedRows("ticket.admitted")).toBe(0);

    expect(await drainRoomEvents(redis, keys, shard, new Set())).toBe(1);
    expect(await redis.xlen(stream)).toBe(0);
    expect(await drainRoomEvents(redis, keys, shard, new Set())).toBe(0);
  });

  it("records a subscribed type before deleting it", async () => {
    await redis.sadd(keys.rooms(), "watched");
    await admissions("watched", 3);
    expect(await drainRoomEvents(redis, keys, shard, new Set(["ticket.admitted"]))).toBe(3);
    expect(await redis.xlen(keys.room("watched").events)).toBe(0);
    expect(await feedRows("ticket.admitted")).toBe(3);
  });

  it("names the id right after an entry's, in the same millisecond", () => {
    expect(successorId("1764400000000-0")).toBe("1764400000000-1");
    expect(successorId("1764400000000-41")).toBe("1764400000000-42");
  });
});
