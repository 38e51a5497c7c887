import { BUCKET_COUNT } from "@floodgate/domain";
import { describe, expect, it } from "vitest";
import { bucketForUser } from "./bucket-for-user.ts";
import { ShardMap } from "./shard-map.ts";

const users = (n: number, name = (i: number) => `user-${i}`) => Array.from({ length: n }, (_, i) => name(i));

describe("bucketForUser", () => {
  it("is stable: the same user always lands in the same bucket (pinned values catch a changed hash)", () => {
    // FNV-1a 32-bit of the UTF-16 code units, modulo 1024. Changing these re-homes every existing wallet.
    expect(bucketForUser("")).toBe(0x811c9dc5 % 1024);
    expect(bucketForUser("a")).toBe(0xe40c292c % 1024);
    expect(bucketForUser("foobar")).toBe(0xbf9cf968 % 1024);
    for (const user of users(100)) expect(bucketForUser(user)).toBe(bucketForUser(`${user}`));
  });

  it("stays in 0..1023 for every kind of id", () => {
    const ids = [...users(5000), "u".repeat(64), "ü", "\u{1F600}", "-", "_", "0", "A".repeat(10_000)];
    for (const id of ids) {
      const bucket = bucketForUser(id);
      expect(Number.isInteger(bucket)).toBe(true);
      expect(bucket).toBeGreaterThanOrEqual(0);
      expect(bucket).toBeLessThan(BUCKET_COUNT);
    }
  });

  it("uses many buckets for sequential ids", () => {
    expect(new Set(users(10_000).map(bucketForUser)).size).toBeGreaterThan(900);
  });

  it.each([
    ["user-<i>", (i: number) => `user-${i}`],
    ["<i>", (i: number) => String(i)],
    ["u_<i padded>", (i: number) => `u_${String(i).padStart(8, "0")}`],
    ["customer-<i*7919>", (i: number) => `customer-${i * 7919}`],
  ])("spreads 10k users of the form %s roughly evenly over 4 shards", (_, name) => {
    const map = ShardMap.contiguous(4);
    const counts = [0, 0, 0, 0];
    for (const user of users(10_000, name)) counts[map.shardForBucket(bucketForUser(user))]!++;
    for (const count of counts) {
      expect(count / 10_000).toBeGreaterThanOrEqual(0.15);
      expect(count / 10_000).toBeLessThanOrEqual(0.35);
    }
  });
});
