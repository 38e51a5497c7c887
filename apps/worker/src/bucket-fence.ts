// The worker's half of the move protocol (see apps/cli/src/shards/bucket-mover.ts): every batch holds a
// shared advisory lock on each of its buckets on the shard for as long as it applies, and first looks whether
// the shard records one of them as moved away (moved_buckets). The mover takes the same lock exclusively before
// writing that record, so it waits for the batches in flight, and every batch after it sees the record and is
// refused: a worker with an old map can never write a moved bucket's rows on its old shard.
// Cost: two statements before the batch's transaction and one after, on the same shard connection.
import { BUCKET_LOCK_SPACE, type ShardDatabase } from "@floodgate/db";
import { type Kysely, sql } from "kysely";

/** The shard no longer owns one of the batch's buckets: retried once the worker has read the new map. */
export class BucketMovedError extends Error {
  readonly buckets: number[];
  constructor(buckets: number[]) {
    super(`buckets ${buckets.join(", ")} moved away from this shard; routing again by the new map`);
    this.name = "BucketMovedError";
    this.buckets = buckets;
  }
}

export async function withBucketFence<T>(
  db: Kysely<ShardDatabase>,
  buckets: number[],
  apply: (connection: Kysely<ShardDatabase>) => Promise<T>,
): Promise<T> {
  const sorted = [...new Set(buckets)].sort((a, b) => a - b);
  return db.connection().execute(async (connection) => {
    try {
      await sql`
        select pg_advisory_lock_shared(${BUCKET_LOCK_SPACE}::int, b) from unnest(${sorted}::int[]) as b
      `.execute(connection);
      // A statement of its own: its snapshot is taken after the locks are held, so it sees a fence row the
      // mover committed while this batch waited for them (one statement would look with an older snapshot).
      const { rows } = await sql<{ bucket: number }>`
        select bucket from moved_buckets where bucket = any(${sorted}::int[])
      `.execute(connection);
      if (rows.length > 0) throw new BucketMovedError(rows.map((row) => row.bucket));
      return await apply(connection);
    } finally {
      // Session locks: released here, or by Postgres when the connection ends (a worker killed mid-batch).
      await sql`select pg_advisory_unlock_all()`.execute(connection);
    }
  });
}
