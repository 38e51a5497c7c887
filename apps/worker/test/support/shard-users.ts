// Users spread evenly over the shards, and a round of operations for them, for tests that take one shard away.
import { bucketForUser, ShardMap } from "@floodgate/shard-router";
import type { OperationRequest } from "./accept-operations.ts";

export const shardOfUser = (shards: number) => {
  const map = ShardMap.contiguous(shards);
  return (userId: string) => map.shardForBucket(bucketForUser(userId));
};

/** `perShard` users on every shard, named `<prefix>-<n>`. */
export function usersOnEveryShard(prefix: string, perShard: number, shards: number): string[] {
  const shardOf = shardOfUser(shards);
  const users: string[] = [];
  const count = new Array(shards).fill(0);
  for (let i = 0; users.length < perShard * shards; i++) {
    const user = `${prefix}-${i}`;
    if (count[shardOf(user)] < perShard) {
      count[shardOf(user)] += 1;
      users.push(user);
    }
  }
  return users;
}

/** Per user a deposit of 1,000, a payment of 400 that succeeds and one of 700 that fails (600 left). */
export const roundFor = (users: string[]): OperationRequest[] =>
  users.flatMap((userId) => [
    { kind: "deposit" as const, userId, amount: 1000 },
    { kind: "payment" as const, userId, amount: 400 },
    { kind: "payment" as const, userId, amount: 700 },
  ]);
