import { BUCKET_COUNT } from "@floodgate/domain";

// Every shard must be able to own a bucket; the count also bounds what the Uint16Array below can hold.
function checkShardCount(shardCount: number): void {
  if (!Number.isInteger(shardCount) || shardCount < 1 || shardCount > BUCKET_COUNT) {
    throw new Error(`shard count must be an integer in 1..${BUCKET_COUNT}, got ${shardCount}`);
  }
}

/**
 * Logical buckets -> physical shards. The default gives each of the configured shards one contiguous range,
 * so adding shards later means moving whole ranges, never rehashing users.
 */
export class ShardMap {
  readonly shardCount: number;
  readonly #shardOfBucket: Uint16Array;

  constructor(shardOfBucket: ArrayLike<number>, shardCount: number) {
    checkShardCount(shardCount);
    if (shardOfBucket.length !== BUCKET_COUNT) throw new Error(`a shard map needs ${BUCKET_COUNT} buckets`);
    for (let b = 0; b < BUCKET_COUNT; b++) {
      const shard = shardOfBucket[b]!;
      if (!Number.isInteger(shard) || shard < 0 || shard >= shardCount) {
        throw new Error(`bucket ${b} maps to shard ${shard}, outside 0..${shardCount - 1}`);
      }
    }
    this.shardCount = shardCount;
    this.#shardOfBucket = Uint16Array.from(shardOfBucket);
  }

  static contiguous(shardCount: number): ShardMap {
    checkShardCount(shardCount);
    const map = Array.from({ length: BUCKET_COUNT }, (_, b) => Math.floor((b * shardCount) / BUCKET_COUNT));
    return new ShardMap(map, shardCount);
  }

  shardForBucket(bucket: number): number {
    const shard = this.#shardOfBucket[bucket];
    if (shard === undefined) throw new RangeError(`bucket ${bucket} is outside 0..${BUCKET_COUNT - 1}`);
    return shard;
  }

  /** Ranges `[from, to]` per shard, for logs and the global database's record of the map. */
  ranges(): { shard: number; fromBucket: number; toBucket: number }[] {
    const out: { shard: number; fromBucket: number; toBucket: number }[] = [];
    for (let b = 0; b < BUCKET_COUNT; b++) {
      const shard = this.#shardOfBucket[b]!;
      const last = out.at(-1);
      if (last && last.shard === shard && last.toBucket === b - 1) last.toBucket = b;
      else out.push({ shard, fromBucket: b, toBucket: b });
    }
    return out;
  }
}
