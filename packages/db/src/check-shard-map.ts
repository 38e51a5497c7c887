import type { Kysely } from "kysely";
import type { GlobalDatabase } from "./shard-tables.ts";

export interface BucketRange {
  shard: number;
  fromBucket: number;
  toBucket: number;
}

/**
 * Records the shard map on first start and refuses a different one later: with another map, existing users'
 * wallets and payments would be looked for on the wrong shard.
 */
export async function checkShardMap(db: Kysely<GlobalDatabase>, ranges: BucketRange[]): Promise<void> {
  const recorded = await db.selectFrom("shard_map").selectAll().orderBy("from_bucket").execute();
  if (recorded.length === 0) {
    await db
      .insertInto("shard_map")
      .values(ranges.map((r) => ({ from_bucket: r.fromBucket, to_bucket: r.toBucket, shard: r.shard })))
      .onConflict((oc) => oc.doNothing())
      .execute();
    return;
  }
  const same =
    recorded.length === ranges.length &&
    recorded.every(
      (row, i) =>
        row.from_bucket === ranges[i]!.fromBucket &&
        row.to_bucket === ranges[i]!.toBucket &&
        row.shard === ranges[i]!.shard,
    );
  if (!same) {
    const shards = new Set(recorded.map((row) => row.shard)).size;
    throw new Error(
      `SHARD_URLS gives ${new Set(ranges.map((r) => r.shard)).size} shards but the data was written with ${shards}; ` +
        "moving buckets between shards needs a migration of their rows first",
    );
  }
}
