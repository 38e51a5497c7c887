// The events feed's retention: the worker deletes the events older than EVENT_RETENTION_DAYS, in batches, and
// leaves the younger ones. Against real shards, with a real worker process for the job itself.
import { createKysely, type ShardDatabase } from "@floodgate/db";
import { webhookEventId } from "@floodgate/domain";
import {
  createTestEnvironment,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteExpiredEvents } from "../src/events/event-retention.ts";
import { waitFor } from "./support/wait-for.ts";

let env: TestEnvironment;
let shards: Kysely<ShardDatabase>[];
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  env = await createTestEnvironment("event-retention", { shards: 2, env: { EVENT_RETENTION_DAYS: "3" } });
  shards = env.config.shardUrls.map((url) => createKysely<ShardDatabase>(url, { max: 1 }));
});

afterAll(async () => {
  await worker?.stop();
  await Promise.all((shards ?? []).map((db) => db.destroy()));
  await env?.cleanup();
});

/** `count` events on a shard, each `ageDays` old; their ids. */
async function events(db: Kysely<ShardDatabase>, prefix: string, count: number, ageDays: number) {
  const ids = Array.from({ length: count }, (_, i) => webhookEventId(`${prefix}-${i}`, "deposit.succeeded"));
  await sql`
    insert into events (event_id, event_type, operation_id, data, created_at)
    select id, 'deposit.succeeded', id, '{}'::jsonb, now() - make_interval(days => ${ageDays})
    from unnest(${ids}::text[]) as id`.execute(db);
  return ids;
}

const remaining = async (db: Kysely<ShardDatabase>) =>
  (await db.selectFrom("events").select("event_id").execute()).map((r) => r.event_id).sort();

describe("event retention", () => {
  it("deletes only events past the retention, batch after batch", async () => {
    const db = shards[0]!;
    const old = await events(db, "old", 7, 10);
    const young = await events(db, "young", 3, 1);
    expect(await deleteExpiredEvents(db, 3, 2)).toBe(old.length);
    expect(await remaining(db)).toEqual([...young].sort());
    expect(await deleteExpiredEvents(db, 3, 2)).toBe(0);
    await db.deleteFrom("events").execute();
  });

  it("is run by the worker on every shard, with EVENT_RETENTION_DAYS", async () => {
    const kept: string[][] = [];
    for (const [i, db] of shards.entries()) {
      await events(db, `worker-old-${i}`, 5, 4);
      kept.push(await events(db, `worker-young-${i}`, 2, 2));
    }
    worker = await startWorkerProcess(env.config);
    for (const [i, db] of shards.entries()) {
      await waitFor(async () => (await remaining(db)).length === 2, `shard ${i}'s old events deleted`);
      expect(await remaining(db)).toEqual([...kept[i]!].sort());
    }
  });
});
