import type { Kysely } from "kysely";
import { sql } from "kysely";

// The fence of a bucket moved away from this shard: written by the mover under the bucket's exclusive advisory
// lock, read by every worker batch under the shared one (bucket-fence.ts), so a worker with an old map can
// never write a moved bucket's rows here.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("moved_buckets")
    .ifNotExists()
    .addColumn("bucket", "integer", (col) => col.primaryKey())
    .addColumn("to_shard", "integer", (col) => col.notNull())
    .addColumn("moved_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("moved_buckets").ifExists().execute();
}
