import { ShardMap } from "@floodgate/shard-router";
import type { Kysely } from "kysely";
import { readShardMap } from "./shard-map-store.ts";
import type { GlobalDatabase } from "./shard-tables.ts";

export interface BucketRange {
  shard: number;
  fromBucket: number;
  toBucket: number;
}

/**
 * Records the contiguous map of SHARD_URLS on first start; later, the recorded map is the truth (buckets move
 * only with `./floodgate shards add`) and is refused if it names a shard SHARD_URLS does not list. A listed shard
 * that owns no bucket yet is fine (one added before its buckets move).
 */
export async function checkShardMap(db: Kysely<GlobalDatabase>, shardCount: number): Promise<void> {
  const recorded = await db.selectFrom("shard_map").select("shard").limit(1).execute();
  if (recorded.length === 0) {
    const ranges = ShardMap.contiguous(shardCount).ranges();
    await db
      .insertInto("shard_map")
      .values(ranges.map((r) => ({ from_bucket: r.fromBucket, to_bucket: r.toBucket, shard: r.shard })))
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
  await readShardMap(db, shardCount);
}
