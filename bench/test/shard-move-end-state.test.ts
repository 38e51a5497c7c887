// The end state the shards-add partition fault demands of a finished move, judged from what the databases hold:
// a user's rows on a shard that does not own their bucket (left behind, or copied twice), a move left in
// shard_moves, a bucket still paused, or the new shard owning other than what was planned each make a problem.
import { BUCKET_COUNT, bucketForUser, ShardMap } from "@floodgate/shard-router";
import { describe, expect, it } from "vitest";
import {
  endStateProblems,
  misplacedUsers,
  summarizeEndState,
} from "../src/faults/hosts/shard-move-end-state.ts";

/** Four shards' contiguous map, with `moved` buckets given to shard 4. */
function mapWith(moved: number[]): ShardMap {
  const contiguous = ShardMap.contiguous(4);
  const owners = Array.from({ length: BUCKET_COUNT }, (_, b) =>
    moved.includes(b) ? 4 : contiguous.shardForBucket(b),
  );
  return new ShardMap(owners, 5);
}

const users = Array.from({ length: 400 }, (_, i) => `user-${i}`);
/** Each user on the shard `map` gives their bucket. */
const placed = (map: ShardMap) =>
  Array.from({ length: 5 }, (_, shard) =>
    users.filter((user) => map.shardForBucket(bucketForUser(user)) === shard),
  );

describe("a finished shard move's end state", () => {
  const moved = [...new Set(users.slice(0, 30).map(bucketForUser))];
  const map = mapWith(moved);

  it("finds nothing wrong when every user is on the shard owning their bucket and the move is done", () => {
    const state = summarizeEndState({ version: 7, map, paused: new Set() }, 0, placed(map));
    expect(state.bucketsPerShard[4]).toBe(moved.length);
    expect(state.bucketsPerShard.reduce((sum, n) => sum + n, 0)).toBe(BUCKET_COUNT);
    expect(state.misplacedCount).toBe(0);
    expect(endStateProblems(state, 4, moved.length)).toEqual([]);
  });

  it("names a moved user's rows left on the old shard too (the bucket on two shards)", () => {
    const perShard = placed(map);
    const user = users[0]!;
    const old = ShardMap.contiguous(4).shardForBucket(bucketForUser(user));
    perShard[old] = [...perShard[old]!, user];
    expect(misplacedUsers((b) => map.shardForBucket(b), perShard)).toEqual([
      { shard: old, userId: user, bucket: bucketForUser(user), owner: 4 },
    ]);
    const state = summarizeEndState({ version: 7, map, paused: new Set() }, 0, perShard);
    expect(endStateProblems(state, 4, moved.length)).toEqual([
      `1 users' rows on a shard that does not own their bucket (e.g. ${user}, bucket ${bucketForUser(user)}, on shard ${old}, owned by shard 4)`,
    ]);
  });

  it("names a move left unfinished, a bucket still paused, and the new shard short of its plan", () => {
    const state = summarizeEndState({ version: 7, map, paused: new Set([moved[0]!]) }, 1, placed(map));
    expect(endStateProblems(state, 4, moved.length + 1)).toEqual([
      "1 moves left unfinished in shard_moves",
      "1 buckets still paused",
      `shard 4 owns ${moved.length} buckets, ${moved.length + 1} were planned`,
    ]);
  });
});
