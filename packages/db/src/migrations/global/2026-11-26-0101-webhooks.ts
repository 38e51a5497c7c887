import { type Kysely, sql } from "kysely";

// Where a shop's events go, and every (event, endpoint) delivery with its attempts.
//
// The endpoint's signing secret is stored as it is, not hashed (the worker must compute HMACs with it, so a
// hash would not do) and not encrypted: a key to decrypt it would sit in the same environment as the database
// URL, and whoever reads this database can already move every wallet. It is a signing secret, not a password:
// a leak lets someone forge deliveries to that shop until it rolls the endpoint (delete and create).
//
// A delivery keeps the event's body, so a redelivery (or a retry three days on) sends the same bytes' content
// without going back to the shard.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("webhook_endpoints")
    .ifNotExists()
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("url", "text", (col) => col.notNull())
    .addColumn("events", sql`text[]`, (col) => col.notNull())
    .addColumn("secret", "text", (col) => col.notNull())
    .addColumn("enabled", "boolean", (col) => col.notNull().defaultTo(true))
    .addColumn("created_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable("webhook_deliveries")
    .ifNotExists()
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("endpoint_id", "text", (col) =>
      col.notNull().references("webhook_endpoints.id").onDelete("cascade"),
    )
    .addColumn("event_id", "text", (col) => col.notNull())
    .addColumn("event_type", "text", (col) => col.notNull())
    .addColumn("payload", "text", (col) => col.notNull())
    .addColumn("attempts", "integer", (col) => col.notNull().defaultTo(0))
    .addColumn("last_status_code", "integer")
    .addColumn("last_error", "text")
    .addColumn("next_attempt_at", "timestamptz")
    .addColumn("delivered_at", "timestamptz")
    .addColumn("gave_up_at", "timestamptz")
    // Set by POST /v1/webhook-deliveries/:id/redeliver; the worker's relay enqueues it and clears it.
    .addColumn("redeliver_requested_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint("webhook_deliveries_event_endpoint", ["event_id", "endpoint_id"])
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_by_endpoint")
    .ifNotExists()
    .on("webhook_deliveries")
    .columns(["endpoint_id", "created_at"])
    .execute();
  // The oldest undelivered delivery (a metric) and the redeliveries asked for are found without a scan.
  await sql`create index if not exists webhook_deliveries_undelivered on webhook_deliveries (created_at)
            where delivered_at is null and gave_up_at is null`.execute(db);
  await sql`create index if not exists webhook_deliveries_redeliver on webhook_deliveries (redeliver_requested_at)
            where redeliver_requested_at is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("webhook_deliveries").ifExists().execute();
  await db.schema.dropTable("webhook_endpoints").ifExists().execute();
}
