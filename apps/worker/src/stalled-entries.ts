// How many entries this worker holds for shards that cannot take them now (a lane backing off, or a batch in
// flight for longer than STALLED_AFTER_MS): the backlog gauge leaves them out, so backpressure measures what
// the workers can drain on the healthy shards and the intake keeps accepting for those.
import type { QueueKeys } from "@floodgate/queue";
import type { ScriptedRedis } from "@floodgate/redis-connections";

/** One field per consumer, `<count> <ms>`; 0 removes it. The gauge ignores a field not renewed lately. */
export async function publishStalledEntries(
  redis: ScriptedRedis,
  keys: QueueKeys,
  consumer: string,
  count: number,
): Promise<void> {
  if (count > 0) await redis.hset(keys.stalledEntries(), consumer, `${count} ${Date.now()}`);
  else await redis.hdel(keys.stalledEntries(), consumer);
}
