// Each stage of the saturation comparison starts on the same keyspace: what a stage left in Redis (its payments'
// status hashes, its BullMQ jobs; nothing drains them, WORKERS=0) is unlinked after it. Left in place, the
// shared Redis's key table doubled at 2^20, 2^21 and 2^22 keys during whichever stage happened to run then, and
// that stage paid the rehash: in the run of 20261130T181737Z every stage whose Redis CPU per request rose from
// 12-13.5 µs to 15.4-17.1 µs (and its intake, waiting on Redis, fell to 84-90 % of a core) was the one that
// crossed one, a different target's each time (issue 30).
import { type RedisClient, unlinkMatching } from "@floodgate/test-fixtures";

/** How long the freeing of a stage's keys may take before the next stage starts anyway. */
const FREED_WITHIN_MS = 30_000;

/** A Floodgate's payments' status hashes (QueueKeys.status: `{p<n>}:st:<tail>`), under its Redis prefix. */
export function floodgateStageKeys(redisPrefix: string): string {
  return `${redisPrefix}{p*}:st:*`;
}

/**
 * Unlinks the keys matching `pattern`, then waits until Redis has freed them (UNLINK frees in a background
 * thread, whose CPU would be charged to the next stage). Resolves to how many keys were unlinked.
 */
export async function clearStageKeys(redis: RedisClient, pattern: string): Promise<number> {
  const removed = await unlinkMatching(redis, pattern);
  const deadline = Date.now() + FREED_WITHIN_MS;
  while (Date.now() < deadline && (await lazyfreePending(redis)) > 0) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return removed;
}

async function lazyfreePending(redis: RedisClient): Promise<number> {
  const memory = await redis.info("memory");
  const match = /^lazyfree_pending_objects:(\d+)/m.exec(memory);
  return match === null ? 0 : Number(match[1]);
}
