// How many keys Redis' database holds, read around each --max stage. Redis grows its key table (and its table of
// expiring keys) by doubling, and while it moves the keys into the new table its CPU rises for seconds: round 6
// (README) inferred such doublings from counting payments; with this the result file shows them.
import { connectRedis, countKeys } from "@floodgate/test-fixtures";

export interface KeyspaceReader {
  /**
   * DBSIZE of the database the URL selects (summed over the masters of a cluster): every key in it, the run's
   * and any other's, since all share the table.
   */
  keys(): Promise<number>;
  close(): void;
}

export function keyspaceReader(redisUrl: string): KeyspaceReader {
  const redis = connectRedis(redisUrl, { maxRetriesPerRequest: 2, lazyConnect: true });
  return {
    keys: () => countKeys(redis),
    close: () => redis.disconnect(),
  };
}
