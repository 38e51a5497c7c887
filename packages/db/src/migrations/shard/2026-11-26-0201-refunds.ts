import { type Kysely, sql } from "kysely";

// Refunds live on their payment's shard. `payments.refunded` is the running total the refunding transaction
// raises under the payment's row lock; its CHECK is the last word on "never more than was paid", whatever a
// worker computes. A refunded order is `refunded` (in full) or `partially_refunded`; `restocked` says its units
// went back to stock (then they no longer count as sold: stock-audit.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("payments")
    .addColumn("refunded", "bigint", (col) => col.notNull().defaultTo(0))
    .execute();
  await sql`alter table payments add constraint payments_refunded_check check (refunded >= 0 and refunded <= amount)`.execute(
    db,
  );
  await db.schema
    .createTable("refunds")
    .ifNotExists()
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("payment_id", "text", (col) => col.notNull())
    // Null when the payment is not on the shard (the refund failed payment_not_found).
    .addColumn("user_id", "text")
    // What was given back, or asked for when refused (null: a full refund that was refused).
    .addColumn("amount", "bigint", (col) => col.check(sql`amount > 0`))
    .addColumn("currency", "text", (col) => col.notNull())
    .addColumn("reason", "text")
    .addColumn("restock", "boolean", (col) => col.notNull().defaultTo(false))
    .addColumn("status", "text", (col) => col.notNull().check(sql`status in ('succeeded', 'failed')`))
    .addColumn("failure_reason", "text")
    .addColumn("created_at", "timestamptz", (col) => col.notNull())
    .addColumn("completed_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex("refunds_payment_id_idx")
    .ifNotExists()
    .on("refunds")
    .column("payment_id")
    .execute();
  await sql`alter table orders drop constraint if exists orders_status_check`.execute(db);
  await sql`alter table orders add constraint orders_status_check check (status in
            ('awaiting_payment', 'paid', 'cancelled', 'expired', 'failed', 'refunded', 'partially_refunded'))`.execute(
    db,
  );
  await db.schema
    .alterTable("orders")
    .addColumn("restocked", "boolean", (col) => col.notNull().defaultTo(false))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("orders").dropColumn("restocked").execute();
  await sql`alter table orders drop constraint if exists orders_status_check`.execute(db);
  await sql`alter table orders add constraint orders_status_check check (status in
            ('awaiting_payment', 'paid', 'cancelled', 'expired', 'failed'))`.execute(db);
  await db.schema.dropTable("refunds").ifExists().execute();
  await sql`alter table payments drop constraint if exists payments_refunded_check`.execute(db);
  await db.schema.alterTable("payments").dropColumn("refunded").execute();
}
