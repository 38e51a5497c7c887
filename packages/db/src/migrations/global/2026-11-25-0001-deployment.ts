import { type Kysely, sql } from "kysely";

// This deployment's id, made once. Every shard records it beside its own index (shard_identity, written by
// migrateAll), so a shard database of another deployment is refused instead of served.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("deployment")
    .ifNotExists()
    .addColumn("one_row", "boolean", (col) => col.primaryKey().defaultTo(true).check(sql`one_row`))
    .addColumn("id", "uuid", (col) => col.notNull().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`insert into deployment default values on conflict do nothing`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("deployment").ifExists().execute();
}
