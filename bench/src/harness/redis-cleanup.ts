// Removes the run's Redis keys (streams, idempotency keys, statuses) once the system has stopped; a run queues
// hundreds of thousands of keys with day-long TTLs that would otherwise sit in the shared Redis. On a Redis
// Cluster every master is scanned, and its keys unlinked one per slot.
import { connectRedis, unlinkMatching } from "@floodgate/test-fixtures";

const CLEANUP_TIMEOUT_MS = 60_000;

export async function deleteKeysWithPrefix(redisUrl: string, prefix: string): Promise<number> {
  const redis = connectRedis(redisUrl, { maxRetriesPerRequest: 2 });
  const deadline = Date.now() + CLEANUP_TIMEOUT_MS;
  try {
    return await unlinkMatching(redis, `${prefix}*`, { stop: () => Date.now() >= deadline });
  } finally {
    redis.disconnect();
  }
}
