import { type Kysely, sql } from "kysely";

// Money is bigint minor units. A wallet's balance can never go below zero, whatever a worker does.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("wallets")
    .ifNotExists()
    .addColumn("user_id", "text", (col) => col.primaryKey())
    .addColumn("balance", "bigint", (col) => col.notNull().defaultTo(0).check(sql`balance >= 0`))
    .addColumn("updated_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .execute();

  for (const table of ["payments", "deposits"] as const) {
    let builder = db.schema
      .createTable(table)
      .ifNotExists()
      .addColumn("id", "text", (col) => col.primaryKey())
      .addColumn("user_id", "text", (col) => col.notNull())
      .addColumn("amount", "bigint", (col) => col.notNull().check(sql`amount > 0`))
      .addColumn("currency", "text", (col) => col.notNull())
      .addColumn("status", "text", (col) => col.notNull().check(sql`status in ('succeeded', 'failed')`))
      .addColumn("failure_reason", "text")
      .addColumn("created_at", "timestamptz", (col) => col.notNull())
      .addColumn("completed_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`));
    if (table === "payments") builder = builder.addColumn("order_id", "text");
    await builder.execute();
    await db.schema
      .createIndex(`${table}_user_id_created_at_idx`)
      .ifNotExists()
      .on(table)
      .columns(["user_id", "created_at"])
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ["deposits", "payments", "wallets"])
    await db.schema.dropTable(table).ifExists().execute();
}
