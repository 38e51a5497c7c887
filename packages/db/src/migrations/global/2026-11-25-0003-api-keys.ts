import { type Kysely, sql } from "kysely";

// The shops' server keys. Only a SHA-256 of each key is kept: a leaked database hands out no key. A revoked
// key keeps its row (revoked_at set) so the list shows what was turned off and when.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("api_keys")
    .ifNotExists()
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("name", "text", (col) => col.notNull())
    .addColumn("key_hash", "bytea", (col) => col.notNull())
    .addColumn("created_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn("revoked_at", "timestamptz")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("api_keys").ifExists().execute();
}
