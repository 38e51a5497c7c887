// Whatever looks at a whole keyspace (a test file's cleanup, the test kits' key listings, the bench's cleanup
// and gauges) must ask every master of a Redis Cluster: SCAN, DBSIZE and CONFIG answer for the node they are
// sent to, and one UNLINK of many keys is refused (CROSSSLOT) unless they share a slot. Against one Redis each
// of these is the plain command, as it always was.
import type { Cluster, Redis } from "ioredis";

export type RedisClient = Redis | Cluster;

const READY_TIMEOUT_MS = 10_000;

export const isCluster = (redis: RedisClient): redis is Cluster => redis.isCluster;

/** The connection to each master: the client itself for one Redis. */
export async function masterConnections(redis: RedisClient): Promise<Redis[]> {
  if (!isCluster(redis)) return [redis];
  await clusterReady(redis);
  const masters = redis.nodes("master");
  if (masters.length === 0) throw new Error("the Redis Cluster client knows no master");
  return masters;
}

/** `fn` on every master at once; the answers in the order of the masters. */
export async function forEachMaster<T>(redis: RedisClient, fn: (node: Redis) => Promise<T>): Promise<T[]> {
  return Promise.all((await masterConnections(redis)).map(fn));
}

export interface ScanOptions {
  /** SCAN's COUNT hint: keys looked at per call. */
  count?: number;
  /** Checked between calls: true stops the scan where it is (a deadline). */
  stop?: () => boolean;
}

/**
 * `onBatch` for each non-empty SCAN batch of keys matching `match`, with the master that holds them. Masters
 * are scanned at once, each batch awaited before that master's next SCAN.
 */
export async function scanBatches(
  redis: RedisClient,
  match: string,
  onBatch: (keys: string[], node: Redis) => Promise<void> | void,
  options: ScanOptions = {},
): Promise<void> {
  const count = options.count ?? 1000;
  await forEachMaster(redis, async (node) => {
    let cursor = "0";
    do {
      const [next, keys] = await node.scan(cursor, "MATCH", match, "COUNT", count);
      cursor = next;
      if (keys.length > 0) await onBatch(keys, node);
    } while (cursor !== "0" && !options.stop?.());
  });
}

/** Every key matching `match` (a SCAN pattern), on every master. */
export async function scanKeys(redis: RedisClient, match: string, options: ScanOptions = {}) {
  const keys: string[] = [];
  await scanBatches(
    redis,
    match,
    (batch) => {
      keys.push(...batch);
    },
    options,
  );
  return keys;
}

/** UNLINKs every key matching `match`; returns how many it removed. */
export async function unlinkMatching(redis: RedisClient, match: string, options: ScanOptions = {}) {
  let removed = 0;
  await scanBatches(
    redis,
    match,
    async (keys, node) => {
      // Not `removed += await …`: that reads `removed` before the await, and masters are scanned at once.
      const count = await unlinkFrom(redis, node, keys);
      removed += count;
    },
    options,
  );
  return removed;
}

/** Keys in the database: DBSIZE, summed over the masters of a cluster. */
export async function countKeys(redis: RedisClient): Promise<number> {
  const sizes = await forEachMaster(redis, (node) => node.dbsize());
  return sizes.reduce((sum, size) => sum + size, 0);
}

/**
 * One UNLINK of the whole batch on one Redis (as before). On a cluster node the batch spans slots, so each key
 * is its own UNLINK, pipelined to the node that listed it; a key whose slot moved since (MOVED) is unlinked
 * again through the cluster client, which follows the slot map.
 */
async function unlinkFrom(redis: RedisClient, node: Redis, keys: string[]): Promise<number> {
  if (!isCluster(redis)) return node.unlink(...keys);
  const pipeline = node.pipeline();
  for (const key of keys) pipeline.unlink(key);
  const replies = (await pipeline.exec()) ?? [];
  let removed = 0;
  const moved: string[] = [];
  replies.forEach(([error, count], i) => {
    if (error) moved.push(keys[i]!);
    else removed += count as number;
  });
  const again = await Promise.all(moved.map((key) => redis.unlink(key)));
  return removed + again.reduce((sum, count) => sum + count, 0);
}

/** A cluster client knows its masters only once it has read the slot map. */
async function clusterReady(cluster: Cluster): Promise<void> {
  if (cluster.status === "ready") return;
  if (cluster.status === "wait") {
    await cluster.connect();
    return;
  }
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cluster.off("ready", onReady);
      reject(new Error(`the Redis Cluster client was not ready after ${READY_TIMEOUT_MS} ms`));
    }, READY_TIMEOUT_MS);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    cluster.once("ready", onReady);
  });
}
