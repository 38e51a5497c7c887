// Removes the run's Redis keys (streams, idempotency keys, statuses) once the system has stopped; a run queues
// hundreds of thousands of keys with day-long TTLs that would otherwise sit in the shared Redis.
import { Redis } from "ioredis";

const CLEANUP_TIMEOUT_MS = 60_000;

export async function deleteKeysWithPrefix(redisUrl: string, prefix: string): Promise<number> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
  const deadline = Date.now() + CLEANUP_TIMEOUT_MS;
  let deleted = 0;
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      if (keys.length > 0) deleted += await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== "0" && Date.now() < deadline);
    return deleted;
  } finally {
    redis.disconnect();
  }
}
