import { type Kysely, sql } from "kysely";

// The events feed (GET /v1/events): every webhook event of the shard's operations, written in the same
// transaction that makes the operation final, whether or not an endpoint subscribes, kept
// EVENT_RETENTION_DAYS. Unlike the outbox (a queue the relay empties) these rows stay, and are read in
// (xid, position) order:
// - `position` is drawn from a sequence at insert, so two transactions may commit in the other order than
//   their positions: a position alone cannot tell a reader that nothing below it is still to come;
// - `xid` is the writing transaction's id. Every transaction still running has an xid at or above the
//   snapshot's xmin (pg_snapshot_xmin(pg_current_snapshot())), and every later one a higher xid, so a reader
//   that hands out only rows with xid < xmin, in (xid, position) order, never hands out a row after one that
//   commits later (apps/intake/src/events/event-feed-query.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("events")
    .ifNotExists()
    .addColumn("event_id", "text", (col) => col.primaryKey())
    .addColumn("position", "bigint", (col) => col.notNull().generatedAlwaysAsIdentity())
    .addColumn("xid", sql`xid8`, (col) => col.notNull().defaultTo(sql`pg_current_xact_id()`))
    .addColumn("event_type", "text", (col) => col.notNull())
    .addColumn("operation_id", "text", (col) => col.notNull())
    .addColumn("data", "jsonb", (col) => col.notNull())
    .addColumn("created_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex("events_feed_order")
    .ifNotExists()
    .on("events")
    .columns(["xid", "position"])
    .execute();
  // The retention job's (worker events/event-retention.ts): the oldest rows, without a scan of the table.
  await db.schema.createIndex("events_created_at").ifNotExists().on("events").column("created_at").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("events").ifExists().execute();
}
