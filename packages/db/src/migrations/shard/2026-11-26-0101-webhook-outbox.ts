import { type Kysely, sql } from "kysely";

// The webhook outbox: one row per event, written in the same transaction that makes its operation final, so
// a worker that dies after the commit loses no event. The relay (worker) turns rows into deliveries and
// deletes them. `data` is null when the relay reads it from the shard (an order that reached a final state).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("webhook_outbox")
    .ifNotExists()
    .addColumn("event_id", "text", (col) => col.primaryKey())
    .addColumn("event_type", "text", (col) => col.notNull())
    .addColumn("operation_id", "text", (col) => col.notNull())
    .addColumn("data", "jsonb")
    .addColumn("created_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("webhook_outbox").ifExists().execute();
}
