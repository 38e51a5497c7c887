// Moves buckets from their shard to another while the system runs. The protocol, per bucket B from shard S to
// shard T (each step recorded in the global database's shard_moves, so a rerun after a crash resumes it):
//  1. pause: shard_moves(B, S, T, 'paused') and a map version bump. Workers poll the version (ShardMapWatch)
//     and from then on hold B's entries unapplied and unacknowledged (paused-bucket-hold.ts); the intake keeps
//     accepting them into the streams, and reads of B still go to S.
//  2. fence S: in one transaction on S, pg_advisory_xact_lock(space, B) and a moved_buckets(B) row. Every worker
//     batch's transaction holds pg_advisory_xact_lock_shared(space, b) for each of its buckets, and looks for
//     moved_buckets first (apps/worker/src/bucket-fence.ts). So the exclusive lock waits for the batches in
//     flight on S, including one of a worker that read the map before the pause; every batch after it finds
//     the row and is refused (retryable: the worker reads the map again and holds or re-routes the entries).
//     From here no row of B changes on S, whatever map a worker holds.
//  3. copy B's rows (every user table, bucket by bucketForUser(user_id); order items with their order) to T in
//     one transaction that first deletes what an earlier crashed copy left there, and T's own fence row of B
//     (a bucket moved back). Then verify: row count and sum per table equal on S and T.
//  4. switch: shard_map gives B to T, shard_moves phase 'switched', version bump, in one global transaction.
//     Workers route B to T and release what they held; reads follow within a poll.
//  5. after every bucket of the run is switched and a grace of a few polls (reads that routed by the old map
//     finish), B's rows are deleted from S (its fence row stays) and the shard_moves row goes.
// A rerun resumes each recorded move: 'paused' from step 2 (all steps are idempotent), 'switched' at step 5.
import {
  BUCKET_LOCK_SPACE,
  bumpShardMapVersion,
  type GlobalDatabase,
  readShardMap,
  SHARD_MAP_POLL_MS,
  type ShardDatabase,
  writeShardMap,
} from "@floodgate/db";
import { BUCKET_COUNT, ShardMap } from "@floodgate/shard-router";
import { type Kysely, sql } from "kysely";
import {
  deleteRows,
  insertRows,
  readRows,
  totals,
  totalsDiffer,
  USER_TABLES,
  usersByBucket,
} from "./bucket-rows.ts";

const DELETE_GRACE_MS = 4 * SHARD_MAP_POLL_MS;

export interface BucketMove {
  bucket: number;
  from: number;
  to: number;
}

export interface MoverStores {
  global: Kysely<GlobalDatabase>;
  shards: Kysely<ShardDatabase>[];
}

export class MoveVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MoveVerificationError";
  }
}

/** Records the moves not recorded yet as paused (one version bump for each, so workers hold at once). */
async function pause(global: Kysely<GlobalDatabase>, move: BucketMove): Promise<void> {
  await global.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto("shard_moves")
      .values({ bucket: move.bucket, from_shard: move.from, to_shard: move.to, phase: "paused" })
      .onConflict((oc) => oc.column("bucket").doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) await bumpShardMapVersion(trx);
  });
}

/** Step 2: waits for the batches in flight on `source` that hold the bucket, then refuses every later one. */
export async function fenceBucket(source: Kysely<ShardDatabase>, move: BucketMove): Promise<void> {
  await source.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${BUCKET_LOCK_SPACE}::int, ${move.bucket}::int)`.execute(trx);
    await trx
      .insertInto("moved_buckets")
      .values({ bucket: move.bucket, to_shard: move.to })
      .onConflict((oc) => oc.column("bucket").doUpdateSet({ to_shard: move.to }))
      .execute();
  });
}

async function copyAndVerify(
  stores: MoverStores,
  move: BucketMove,
): Promise<{ users: string[]; rows: number }> {
  const source = stores.shards[move.from]!;
  const target = stores.shards[move.to]!;
  const users = (await usersByBucket(source)).get(move.bucket) ?? [];
  const rows = await Promise.all(USER_TABLES.map((table) => readRows(source, table, users)));
  await target.transaction().execute(async (trx) => {
    await trx.deleteFrom("moved_buckets").where("bucket", "=", move.bucket).execute();
    if (users.length === 0) return;
    await deleteRows(trx, users);
    for (const [i, table] of USER_TABLES.entries()) await insertRows(trx, table, rows[i]!);
  });
  const differ = totalsDiffer(await totals(source, users), await totals(target, users));
  if (differ) throw new MoveVerificationError(`bucket ${move.bucket}: copy differs: ${differ}`);
  return { users, rows: rows.reduce((n, r) => n + r.length, 0) };
}

async function switchOwner(
  global: Kysely<GlobalDatabase>,
  shardCount: number,
  move: BucketMove,
): Promise<number> {
  return global.transaction().execute(async (trx) => {
    await sql`lock table shard_map in exclusive mode`.execute(trx);
    const { map } = await readShardMap(trx, shardCount);
    const owners = Array.from({ length: BUCKET_COUNT }, (_, b) => map.shardForBucket(b));
    owners[move.bucket] = move.to;
    await writeShardMap(trx, new ShardMap(owners, shardCount));
    await trx
      .updateTable("shard_moves")
      .set({ phase: "switched" })
      .where("bucket", "=", move.bucket)
      .execute();
    return bumpShardMapVersion(trx);
  });
}

/**
 * `copied`: the users this run copied (the bucket was fenced on its old shard before, so they are all it has
 * there); a move resumed after its switch reads them again.
 */
async function deleteOld(stores: MoverStores, move: BucketMove, copied?: string[]): Promise<number> {
  const source = stores.shards[move.from]!;
  const users = copied ?? (await usersByBucket(source)).get(move.bucket) ?? [];
  const deleted =
    users.length === 0 ? 0 : await source.transaction().execute((trx) => deleteRows(trx, users));
  await stores.global.deleteFrom("shard_moves").where("bucket", "=", move.bucket).execute();
  return deleted;
}

/** The moves a crashed run left, in bucket order. */
export async function recordedMoves(global: Kysely<GlobalDatabase>) {
  const rows = await global.selectFrom("shard_moves").selectAll().orderBy("bucket").execute();
  return rows.map((r) => ({ bucket: r.bucket, from: r.from_shard, to: r.to_shard, phase: r.phase }));
}

/**
 * Runs `moves` (new ones) after the recorded ones a crashed run left, one bucket at a time through step 4, then
 * step 5 for all of them. `progress` gets one line per bucket and step worth saying.
 */
export async function moveBuckets(
  stores: MoverStores,
  moves: BucketMove[],
  progress: (line: string) => void,
): Promise<void> {
  const shardCount = stores.shards.length;
  const recorded = await recordedMoves(stores.global);
  const resumed = recorded.filter((m) => m.phase === "paused");
  const toDelete: BucketMove[] = recorded.filter((m) => m.phase === "switched");
  // Each scan of a shard's users reads every user table: one per bucket copied, not another to delete it.
  const copiedUsers = new Map<number, string[]>();
  for (const move of recorded)
    progress(`bucket ${move.bucket}: resuming its move (${move.phase}) to shard ${move.to}`);
  const recordedBuckets = new Set(recorded.map((m) => m.bucket));
  for (const move of [...resumed, ...moves.filter((m) => !recordedBuckets.has(m.bucket))]) {
    await pause(stores.global, move);
    await fenceBucket(stores.shards[move.from]!, move);
    const copied = await copyAndVerify(stores, move);
    const version = await switchOwner(stores.global, shardCount, move);
    toDelete.push(move);
    copiedUsers.set(move.bucket, copied.users);
    progress(
      `bucket ${move.bucket}: shard ${move.from} -> ${move.to}: ${copied.users.length} users, ${copied.rows} rows ` +
        `copied and verified; switched (map version ${version})`,
    );
  }
  if (toDelete.length === 0) return;
  // Reads that routed by the old map a moment ago finish before their rows go.
  await new Promise((resolve) => setTimeout(resolve, DELETE_GRACE_MS));
  for (const move of toDelete) {
    const deleted = await deleteOld(stores, move, copiedUsers.get(move.bucket));
    progress(`bucket ${move.bucket}: ${deleted} rows deleted from shard ${move.from}`);
  }
}
