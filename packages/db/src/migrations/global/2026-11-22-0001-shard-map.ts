import { type Kysely, sql } from "kysely";

// The bucket ranges each shard owned when data was written. Start refuses a configuration that would route
// buckets elsewhere (see check-shard-map.ts): misrouted reads would look like lost payments.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("shard_map")
    .ifNotExists()
    .addColumn("from_bucket", "integer", (col) => col.primaryKey())
    .addColumn("to_bucket", "integer", (col) => col.notNull())
    .addColumn("shard", "integer", (col) => col.notNull().check(sql`shard >= 0`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("shard_map").ifExists().execute();
}
