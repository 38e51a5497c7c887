// What a finished `shards add` must leave, read from the databases themselves: no move recorded unfinished, no
// bucket paused, the new shard owning the buckets the run planned, and every user's rows on the one shard the
// map gives their bucket (a bucket whose rows are on two shards, or on a shard that does not own it, is named).
import {
  createKysely,
  createPool,
  type GlobalDatabase,
  type RecordedShardMap,
  readShardMap,
} from "@floodgate/db";
import { bucketForUser } from "@floodgate/shard-router";

export interface MisplacedUser {
  shard: number;
  userId: string;
  bucket: number;
  /** The shard the map gives the bucket. */
  owner: number;
}

export interface MoveEndState {
  mapVersion: number;
  /** Moves still in shard_moves (paused or switched, their old rows not deleted). */
  unfinishedMoves: number;
  pausedBuckets: number;
  /** Buckets the map gives each shard. */
  bucketsPerShard: number[];
  /** Users with rows on a shard the map does not give their bucket to (the first few, and how many). */
  misplaced: MisplacedUser[];
  misplacedCount: number;
}

/** The users every shard holds rows of (the tables with a user_id; order items and refunds follow theirs). */
const USERS_SQL = `select user_id from wallets union select user_id from payments union select user_id from deposits
  union select user_id from issued_coupons union select user_id from orders`;

/** Users on a shard the map does not give their bucket to. */
export function misplacedUsers(
  ownerOf: (bucket: number) => number,
  usersPerShard: readonly (readonly string[])[],
): MisplacedUser[] {
  return usersPerShard.flatMap((users, shard) =>
    users.flatMap((userId) => {
      const bucket = bucketForUser(userId);
      const owner = ownerOf(bucket);
      return owner === shard ? [] : [{ shard, userId, bucket, owner }];
    }),
  );
}

export function summarizeEndState(
  recorded: RecordedShardMap,
  unfinishedMoves: number,
  usersPerShard: readonly (readonly string[])[],
): MoveEndState {
  const bucketsPerShard = usersPerShard.map(() => 0);
  for (const range of recorded.map.ranges())
    bucketsPerShard[range.shard] =
      (bucketsPerShard[range.shard] ?? 0) + range.toBucket - range.fromBucket + 1;
  const misplaced = misplacedUsers((bucket) => recorded.map.shardForBucket(bucket), usersPerShard);
  return {
    mapVersion: recorded.version,
    unfinishedMoves,
    pausedBuckets: recorded.paused.size,
    bucketsPerShard,
    misplaced: misplaced.slice(0, 10),
    misplacedCount: misplaced.length,
  };
}

/** What is wrong with the end state of a move that planned `planned` buckets to shard `target` (none: empty). */
export function endStateProblems(state: MoveEndState, target: number, planned: number): string[] {
  const problems: string[] = [];
  if (state.unfinishedMoves > 0)
    problems.push(`${state.unfinishedMoves} moves left unfinished in shard_moves`);
  if (state.pausedBuckets > 0) problems.push(`${state.pausedBuckets} buckets still paused`);
  if (state.bucketsPerShard[target] !== planned) {
    problems.push(
      `shard ${target} owns ${state.bucketsPerShard[target] ?? 0} buckets, ${planned} were planned`,
    );
  }
  if (state.misplacedCount > 0) {
    const first = state.misplaced[0]!;
    problems.push(
      `${state.misplacedCount} users' rows on a shard that does not own their bucket (e.g. ${first.userId}, bucket ${first.bucket}, on shard ${first.shard}, owned by shard ${first.owner})`,
    );
  }
  return problems;
}

export async function readMoveEndState(
  databaseUrl: string,
  shardUrls: readonly string[],
): Promise<MoveEndState> {
  const global = createKysely<GlobalDatabase>(databaseUrl, { max: 1, applicationName: "floodgate-bench" });
  const pools = shardUrls.map((url) => createPool(url, { max: 1, applicationName: "floodgate-bench" }));
  try {
    const recorded = await readShardMap(global, shardUrls.length);
    const unfinished = await global.selectFrom("shard_moves").select("bucket").execute();
    const usersPerShard = await Promise.all(
      pools.map(async (pool) =>
        (await pool.query<{ user_id: string }>(USERS_SQL)).rows.map((row) => row.user_id),
      ),
    );
    return summarizeEndState(recorded, unfinished.length, usersPerShard);
  } finally {
    await global.destroy();
    await Promise.all(pools.map((pool) => pool.end()));
  }
}

/** Polls shard_moves until a move is recorded paused (between pause and switch: its bucket being fenced,
 * copied or verified), or `timeoutMs` passes (null). */
export async function waitForPausedMove(
  databaseUrl: string,
  timeoutMs: number,
): Promise<{ bucket: number; from: number; to: number } | null> {
  const global = createKysely<GlobalDatabase>(databaseUrl, { max: 1, applicationName: "floodgate-bench" });
  const deadline = Date.now() + timeoutMs;
  try {
    while (Date.now() < deadline) {
      const row = await global
        .selectFrom("shard_moves")
        .select(["bucket", "from_shard", "to_shard"])
        .where("phase", "=", "paused")
        .executeTakeFirst();
      if (row) return { bucket: row.bucket, from: row.from_shard, to: row.to_shard };
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return null;
  } finally {
    await global.destroy();
  }
}
