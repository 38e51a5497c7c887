// The worker's half of the move protocol (see apps/cli/src/shards/bucket-mover.ts): every batch's transaction
// first takes a shared advisory lock on each of its buckets (held until it commits or rolls back) and looks
// whether the shard records one of them as moved away (moved_buckets). The mover takes the same lock
// exclusively while it writes that record, so it waits for the batches in flight, and every batch after it sees
// the record and is refused: a worker with an old map can never write a moved bucket's rows on its old shard.
// Cost: the first two statements of the batch's one transaction; nothing before or after it.
import { BUCKET_LOCK_SPACE, type ShardDatabase } from "@floodgate/db";
import { type Kysely, sql, type Transaction } from "kysely";

/** The shard no longer owns one of the batch's buckets: retried once the worker has read the new map. */
export class BucketMovedError extends Error {
  readonly buckets: number[];
  constructor(buckets: number[]) {
    super(`buckets ${buckets.join(", ")} moved away from this shard; routing again by the new map`);
    this.name = "BucketMovedError";
    this.buckets = buckets;
  }
}

/** The fence, as the first statements of a transaction (read committed, Postgres' default). */
export async function fenceBuckets(trx: Transaction<ShardDatabase>, buckets: number[]): Promise<void> {
  const sorted = [...new Set(buckets)].sort((a, b) => a - b);
  // Transaction locks: released by the commit or the rollback, or by Postgres when a killed worker's
  // connection ends; in bucket order, so two batches never wait for each other.
  await sql`
    select pg_advisory_xact_lock_shared(${BUCKET_LOCK_SPACE}::int, b) from unnest(${sorted}::int[]) as b
  `.execute(trx);
  // A statement of its own: its snapshot is taken after the locks are held, so it sees a fence row the mover
  // committed while this batch waited for them (one statement would look with an older snapshot).
  const { rows } = await sql<{ bucket: number }>`
    select bucket from moved_buckets where bucket = any(${sorted}::int[])
  `.execute(trx);
  if (rows.length > 0) throw new BucketMovedError(rows.map((row) => row.bucket));
}

/** Statements the fence adds to a batch's transaction. */
export const FENCE_STATEMENTS = 2;

/** A transaction behind the fence, for work that is not an applyShardBatch (which fences its own). */
export function withBucketFence<T>(
  db: Kysely<ShardDatabase>,
  buckets: number[],
  apply: (trx: Transaction<ShardDatabase>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await fenceBuckets(trx, buckets);
    return apply(trx);
  });
}
