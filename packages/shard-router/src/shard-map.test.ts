import { BUCKET_COUNT } from "@floodgate/domain";
import { describe, expect, it } from "vitest";
import { ShardMap } from "./shard-map.ts";

describe("ShardMap.contiguous", () => {
  it.each([1, 2, 3, 4, 7, 16, 1024])("covers all 1024 buckets with %i contiguous ranges", (shards) => {
    const map = ShardMap.contiguous(shards);
    expect(map.shardCount).toBe(shards);
    const ranges = map.ranges();
    expect(ranges.map((r) => r.shard)).toEqual(Array.from({ length: shards }, (_, i) => i));
    expect(ranges[0]!.fromBucket).toBe(0);
    expect(ranges.at(-1)!.toBucket).toBe(BUCKET_COUNT - 1);
    for (let i = 1; i < ranges.length; i++) expect(ranges[i]!.fromBucket).toBe(ranges[i - 1]!.toBucket + 1);
    const sizes = ranges.map((r) => r.toBucket - r.fromBucket + 1);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(BUCKET_COUNT);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    for (const r of ranges) {
      for (let b = r.fromBucket; b <= r.toBucket; b++) expect(map.shardForBucket(b)).toBe(r.shard);
    }
  });

  it("gives 4 shards 256 buckets each", () => {
    expect(ShardMap.contiguous(4).ranges()).toEqual([
      { shard: 0, fromBucket: 0, toBucket: 255 },
      { shard: 1, fromBucket: 256, toBucket: 511 },
      { shard: 2, fromBucket: 512, toBucket: 767 },
      { shard: 3, fromBucket: 768, toBucket: 1023 },
    ]);
  });

  it.each([0, -1, 1025, 1.5, Number.NaN])("refuses %s shards", (shards) => {
    expect(() => ShardMap.contiguous(shards)).toThrow();
  });
});

describe("new ShardMap", () => {
  it("takes any complete map and reports its ranges", () => {
    const map = new ShardMap(
      Array.from({ length: BUCKET_COUNT }, (_, b) => b % 2),
      2,
    );
    expect(map.shardForBucket(0)).toBe(0);
    expect(map.shardForBucket(1)).toBe(1);
    expect(map.ranges()).toHaveLength(BUCKET_COUNT);
    expect(map.ranges()[3]).toEqual({ shard: 1, fromBucket: 3, toBucket: 3 });
  });

  it("does not change when the array it was built from does", () => {
    const buckets = Array.from({ length: BUCKET_COUNT }, () => 0);
    const map = new ShardMap(buckets, 2);
    buckets[0] = 1;
    expect(map.shardForBucket(0)).toBe(0);
  });

  const full = (shard: (b: number) => number) => Array.from({ length: BUCKET_COUNT }, (_, b) => shard(b));
  it.each([
    ["too few buckets", Array.from({ length: BUCKET_COUNT - 1 }, () => 0), 1],
    ["too many buckets", Array.from({ length: BUCKET_COUNT + 1 }, () => 0), 1],
    ["no buckets", [], 1],
    ["a shard past the count", full((b) => (b === 700 ? 4 : 0)), 4],
    ["a negative shard", full((b) => (b === 3 ? -1 : 0)), 4],
    ["a fractional shard", full((b) => (b === 3 ? 0.5 : 0)), 4],
    ["a NaN shard", full((b) => (b === 3 ? Number.NaN : 0)), 4],
    ["a shard count of zero", full(() => 0), 0],
    ["a shard count the map cannot hold", full((b) => (b === 0 ? 65_536 : 0)), 70_000],
  ])("refuses %s", (_, buckets, shards) => {
    expect(() => new ShardMap(buckets, shards)).toThrow();
  });

  it.each([-1, BUCKET_COUNT, 1.5, Number.NaN])("refuses to look up bucket %s", (bucket) => {
    expect(() => ShardMap.contiguous(4).shardForBucket(bucket)).toThrow(RangeError);
  });
});
