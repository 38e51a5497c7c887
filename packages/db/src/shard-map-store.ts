// The shard map as the global database records it: bucket ranges (shard_map), a version every change bumps
// (shard_map_version) and the buckets being moved (shard_moves). It is the routing truth of every process:
// SHARD_URLS only says where shard i lives; which buckets shard i owns is read from here.
import { BUCKET_COUNT } from "@floodgate/domain";
import { ShardMap } from "@floodgate/shard-router";
import { type Kysely, sql, type Transaction } from "kysely";
import type { GlobalDatabase } from "./shard-tables.ts";

export interface RecordedShardMap {
  version: number;
  map: ShardMap;
  /** Buckets whose rows are being copied to another shard: their operations wait (the worker holds them). */
  paused: ReadonlySet<number>;
}

/** The map records a shard SHARD_URLS does not list: refusing beats writing a bucket's rows nowhere. */
export class ShardMapError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ShardMapError";
  }
}

/**
 * The advisory lock space of bucket fences (two-key form: this, bucket), shared by the worker's batches
 * (shared, apps/worker/src/bucket-fence.ts) and the mover (exclusive, apps/cli/src/shards/bucket-mover.ts).
 */
export const BUCKET_LOCK_SPACE = 0x46470001;

type GlobalReader = Kysely<GlobalDatabase> | Transaction<GlobalDatabase>;

export async function readShardMapVersion(global: GlobalReader): Promise<number> {
  const row = await global.selectFrom("shard_map_version").select("version").executeTakeFirst();
  return row ? Number(row.version) : 0;
}

/** Buckets -> shards as recorded; `shardCount` is the length of SHARD_URLS (a listed shard may own nothing). */
export async function readShardMap(global: GlobalReader, shardCount: number): Promise<RecordedShardMap> {
  const [version, ranges, moves] = await Promise.all([
    readShardMapVersion(global),
    global.selectFrom("shard_map").selectAll().orderBy("from_bucket").execute(),
    global.selectFrom("shard_moves").select(["bucket", "phase"]).execute(),
  ]);
  if (ranges.length === 0) {
    throw new ShardMapError("the global database records no shard map: run ./floodgate migrate");
  }
  const shardOfBucket = new Array<number>(BUCKET_COUNT).fill(-1);
  for (const range of ranges) {
    for (let b = range.from_bucket; b <= range.to_bucket; b++) shardOfBucket[b] = range.shard;
  }
  const missing = shardOfBucket.indexOf(-1);
  if (missing >= 0) throw new ShardMapError(`the recorded shard map gives bucket ${missing} no shard`);
  const highest = Math.max(...shardOfBucket);
  if (highest >= shardCount) {
    throw new ShardMapError(
      `the recorded shard map gives buckets to shard ${highest} but SHARD_URLS lists ${shardCount} shards: ` +
        "list every shard of the deployment, in order",
    );
  }
  return {
    version,
    map: new ShardMap(shardOfBucket, shardCount),
    paused: new Set(moves.filter((m) => m.phase === "paused").map((m) => m.bucket)),
  };
}

/** Writes the whole map (a handful of ranges) in `trx`; the caller bumps the version in the same transaction. */
export async function writeShardMap(trx: Transaction<GlobalDatabase>, map: ShardMap): Promise<void> {
  await trx.deleteFrom("shard_map").execute();
  await trx
    .insertInto("shard_map")
    .values(map.ranges().map((r) => ({ from_bucket: r.fromBucket, to_bucket: r.toBucket, shard: r.shard })))
    .execute();
}

/** Every process polls this number: bumping it makes them re-read the map within a poll. */
export async function bumpShardMapVersion(trx: Transaction<GlobalDatabase>): Promise<number> {
  const row = await trx
    .updateTable("shard_map_version")
    .set({ version: sql`version + 1` })
    .returning("version")
    .executeTakeFirstOrThrow();
  return Number(row.version);
}
