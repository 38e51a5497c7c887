// Which buckets `./floodgate shards add` moves to the new shard: enough for it to own `want` (by default its
// fair share, BUCKET_COUNT / the number of shards then owning buckets), counting what it owns and what moves to
// it already, so a rerun after a crash moves no more. Each is taken from the shard owning the most at that
// point, from the top of its range, so every shard keeps few contiguous ranges.
import { BUCKET_COUNT, type ShardMap } from "@floodgate/shard-router";
import type { BucketMove } from "./bucket-mover.ts";

export function fairShare(map: ShardMap, target: number): number {
  const owners = new Set(map.ranges().map((r) => r.shard));
  owners.add(target);
  return Math.floor(BUCKET_COUNT / owners.size);
}

export function planMoves(map: ShardMap, target: number, want: number, pending: BucketMove[]): BucketMove[] {
  const owned = new Map<number, number[]>();
  const moving = new Set(pending.map((m) => m.bucket));
  let count = want - pending.filter((m) => m.to === target && map.shardForBucket(m.bucket) !== target).length;
  for (let b = 0; b < BUCKET_COUNT; b++) {
    const shard = map.shardForBucket(b);
    if (shard === target) count -= 1;
    if (shard === target || moving.has(b)) continue;
    const list = owned.get(shard);
    if (list) list.push(b);
    else owned.set(shard, [b]);
  }
  const moves: BucketMove[] = [];
  while (moves.length < count) {
    let from: number | undefined;
    for (const [shard, buckets] of owned) {
      if (buckets.length > 1 && (from === undefined || buckets.length > owned.get(from)!.length))
        from = shard;
    }
    if (from === undefined) break; // every other shard is down to one bucket
    moves.push({ bucket: owned.get(from)!.pop()!, from, to: target });
  }
  return moves.sort((a, b) => a.bucket - b.bucket);
}

/** `[from-to]` ranges of a sorted bucket list, for the plan and the listing. */
export function bucketRanges(buckets: number[]): string {
  const parts: string[] = [];
  let start = buckets[0];
  for (let i = 0; i < buckets.length; i++) {
    const b = buckets[i]!;
    const next = buckets[i + 1];
    if (next !== b + 1) {
      parts.push(start === b ? `${b}` : `${start}-${b}`);
      start = next;
    }
  }
  return parts.join(", ") || "none";
}
