import { type Kysely, sql } from "kysely";

// Money a shop took at its own payment provider for an order, on the order's shard: the row and the order's
// `paid` are written in one transaction. No wallet row moves, so the wallet invariant (balance = deposits -
// payments + refunds) never sees these. One charge is one payment: the first row of a (provider, reference) is
// its original, every later one names it in `duplicate_of`; the partial unique index is the last word on that,
// whatever a worker decides (a second original aborts the transaction).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("provider_payments")
    .ifNotExists()
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("order_id", "text", (col) => col.notNull())
    // Null when the order was not on the shard (the payment failed order_not_found).
    .addColumn("user_id", "text")
    .addColumn("provider", "text", (col) => col.notNull())
    .addColumn("reference", "text", (col) => col.notNull())
    .addColumn("amount", "bigint", (col) => col.notNull().check(sql`amount > 0`))
    .addColumn("currency", "text", (col) => col.notNull())
    .addColumn("status", "text", (col) => col.notNull().check(sql`status in ('succeeded', 'failed')`))
    .addColumn("failure_reason", "text")
    .addColumn("duplicate_of", "text")
    .addColumn("created_at", "timestamptz", (col) => col.notNull())
    .addColumn("completed_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create unique index if not exists provider_payments_reference_key
            on provider_payments (provider, reference) where duplicate_of is null`.execute(db);
  await db.schema
    .createIndex("provider_payments_order_id_idx")
    .ifNotExists()
    .on("provider_payments")
    .column("order_id")
    .execute();
  await db.schema.alterTable("orders").addColumn("provider", "text").execute();
  await db.schema.alterTable("orders").addColumn("provider_reference", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("orders").dropColumn("provider_reference").execute();
  await db.schema.alterTable("orders").dropColumn("provider").execute();
  await db.schema.dropTable("provider_payments").ifExists().execute();
}
