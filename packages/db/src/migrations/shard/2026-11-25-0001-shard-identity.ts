import { type Kysely, sql } from "kysely";

// Which shard of which deployment this database is. The row is written by migrateAll (a migration cannot know
// its shard's position in SHARD_URLS); every process then refuses a URL whose database is another shard.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("shard_identity")
    .ifNotExists()
    .addColumn("one_row", "boolean", (col) => col.primaryKey().defaultTo(true).check(sql`one_row`))
    .addColumn("deployment_id", "uuid", (col) => col.notNull())
    .addColumn("shard", "integer", (col) => col.notNull().check(sql`shard >= 0`))
    .addColumn("recorded_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("shard_identity").ifExists().execute();
}
