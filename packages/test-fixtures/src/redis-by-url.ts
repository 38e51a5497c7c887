// A connection for tools and tests (cleanup, key listings, gauges), from any form of REDIS_URL: one Redis or a
// Redis Cluster by its seed nodes. The app's own connections come from @floodgate/redis-connections' createRedis,
// which this package cannot import (that package's tests depend on this one); these need none of its scripts or
// fail-fast rules.
import { parseRedisUrl } from "@floodgate/config";
import { Cluster, Redis, type RedisOptions } from "ioredis";
import type { RedisClient } from "./redis-masters.ts";

/** `options` apply to the one Redis, or to every node of a cluster. */
export function connectRedis(url: string, options: RedisOptions = {}): RedisClient {
  const target = parseRedisUrl(url);
  if (target.kind === "single") return new Redis(target.url, options);
  const { lazyConnect, ...perNode } = options;
  return new Cluster(target.nodes, {
    lazyConnect: lazyConnect ?? false,
    // Reads go to masters: a replica may not yet have the write a test just made.
    scaleReads: "master",
    redisOptions: {
      ...perNode,
      ...(target.username !== undefined ? { username: target.username } : {}),
      ...(target.password !== undefined ? { password: target.password } : {}),
      ...(target.tls ? { tls: {} } : {}),
    },
  });
}
