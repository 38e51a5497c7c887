import type { Kysely } from "kysely";
import { sql } from "kysely";

// The shard map becomes the routing truth (shard_map, read by every process): a version every change bumps, so
// processes poll one number and re-read the map only when it moves; and the state of each bucket being moved
// to another shard (`./floodgate shards add`), so a crashed move is resumed by the next run.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("shard_map_version")
    .ifNotExists()
    .addColumn("one_row", "boolean", (col) => col.primaryKey().defaultTo(true).check(sql`one_row`))
    .addColumn("version", "bigint", (col) => col.notNull().defaultTo(1))
    .execute();
  await sql`insert into shard_map_version default values on conflict do nothing`.execute(db);
  await db.schema
    .createTable("shard_moves")
    .ifNotExists()
    .addColumn("bucket", "integer", (col) => col.primaryKey())
    .addColumn("from_shard", "integer", (col) => col.notNull())
    .addColumn("to_shard", "integer", (col) => col.notNull())
    // paused: its entries are held and its rows are being copied; switched: the map names to_shard, the rows
    // left on from_shard are still to be deleted.
    .addColumn("phase", "text", (col) => col.notNull().check(sql`phase in ('paused', 'switched')`))
    .addColumn("started_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("shard_moves").ifExists().execute();
  await db.schema.dropTable("shard_map_version").ifExists().execute();
}
