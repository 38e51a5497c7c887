// The lines of `./floodgate shards`: per shard of SHARD_URLS its URL (redacted), the buckets the recorded map
// gives it, its rows (all user tables) and its database size; then any move a crashed run left.
import {
  createKysely,
  type GlobalDatabase,
  readShardMap,
  redactUrl,
  type ShardDatabase,
} from "@floodgate/db";
import { BUCKET_COUNT } from "@floodgate/shard-router";
import { sql } from "kysely";
import { recordedMoves } from "./bucket-mover.ts";
import { USER_TABLES } from "./bucket-rows.ts";
import { bucketRanges } from "./shard-move-plan.ts";

async function shardStats(url: string): Promise<string> {
  const db = createKysely<ShardDatabase>(url, { max: 1, applicationName: "floodgate-shards" });
  try {
    const counts = USER_TABLES.map((t) => sql`(select count(*) from ${sql.table(t)})`);
    const { rows } = await sql<{ rows: string; size: string }>`
      select (${sql.join(counts, sql` + `)})::text as rows, pg_size_pretty(pg_database_size(current_database())) as size
    `.execute(db);
    return `${rows[0]!.rows} rows, ${rows[0]!.size}`;
  } catch (error) {
    return `unreadable: ${(error as Error).message}`;
  } finally {
    await db.destroy();
  }
}

export async function listShards(databaseUrl: string, shardUrls: string[]): Promise<string[]> {
  const global = createKysely<GlobalDatabase>(databaseUrl, { max: 1, applicationName: "floodgate-shards" });
  try {
    const { version, map, paused } = await readShardMap(global, shardUrls.length);
    const stats = await Promise.all(shardUrls.map(shardStats));
    const lines = [`shard map version ${version}, ${BUCKET_COUNT} buckets`];
    for (const [i, url] of shardUrls.entries()) {
      const owned = Array.from({ length: BUCKET_COUNT }, (_, b) => b).filter(
        (b) => map.shardForBucket(b) === i,
      );
      lines.push(
        `shard ${i} ${redactUrl(url)}: buckets ${bucketRanges(owned)} (${owned.length}); ${stats[i]}`,
      );
    }
    for (const move of await recordedMoves(global)) {
      lines.push(
        `bucket ${move.bucket}: move from shard ${move.from} to ${move.to} stopped at ${move.phase}: run shards add again`,
      );
    }
    if (paused.size > 0) lines.push(`paused buckets: ${bucketRanges([...paused].sort((a, b) => a - b))}`);
    return lines;
  } finally {
    await global.destroy();
  }
}
