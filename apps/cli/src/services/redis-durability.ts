// What an accepted request (a 202) survives depends on how the Redis holding the queue persists: `start` reads
// it (CONFIG GET) and says so, warning when a restart of Redis would lose the accepted backlog.
import { parseRedisUrl } from "@floodgate/config";
import { createRedis, waitForRedis } from "@floodgate/redis-connections";
import { type Cluster, Redis } from "ioredis";

export interface RedisDurability {
  appendonly: string;
  appendfsync: string;
  /** RDB snapshot rules; "" for none. */
  save: string;
}

/**
 * The Redis's persistence settings, or null when it does not let us read them (CONFIG is often disabled). On a
 * cluster, the least durable of its masters' (an accepted request is as safe as the master that holds it).
 */
export async function readRedisDurability(redisUrl: string): Promise<RedisDurability | null> {
  if (parseRedisUrl(redisUrl).kind === "cluster") return readClusterDurability(redisUrl);
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  redis.on("error", () => {});
  try {
    await redis.connect();
    const read = async (name: string) => ((await redis.config("GET", name)) as string[])[1] ?? "";
    return {
      appendonly: await read("appendonly"),
      appendfsync: await read("appendfsync"),
      save: await read("save"),
    };
  } catch {
    return null;
  } finally {
    redis.disconnect();
  }
}

async function readClusterDurability(redisUrl: string): Promise<RedisDurability | null> {
  const cluster = createRedis(redisUrl, { name: "floodgate-durability" }) as Cluster;
  cluster.on("error", () => {});
  try {
    await waitForRedis(cluster, 5000);
    const masters = await Promise.all(
      cluster.nodes("master").map(async (node) => {
        const read = async (name: string) => ((await node.config("GET", name)) as string[])[1] ?? "";
        return {
          appendonly: await read("appendonly"),
          appendfsync: await read("appendfsync"),
          save: await read("save"),
        };
      }),
    );
    return masters.sort((a, b) => durabilityRank(a) - durabilityRank(b))[0] ?? null;
  } catch {
    return null;
  } finally {
    cluster.disconnect();
  }
}

/** Higher keeps more through a crash: AOF always, AOF, snapshots only, nothing. */
function durabilityRank(durability: RedisDurability): number {
  if (durability.appendonly === "yes") return durability.appendfsync === "always" ? 3 : 2;
  return durability.save === "" ? 0 : 1;
}

/** One line for the start banner: a warning when a Redis restart loses accepted requests, else what it keeps. */
export function durabilityLine(durability: RedisDurability | null): { warn: boolean; line: string } {
  if (durability === null) {
    return {
      warn: true,
      line: "redis    persistence unknown (CONFIG GET refused): check that it runs with appendonly yes, or a restart of Redis loses every accepted request not yet applied",
    };
  }
  if (durability.appendonly === "yes") {
    return durability.appendfsync === "always"
      ? { warn: false, line: "redis    AOF with appendfsync always: a 202 survives a Redis crash" }
      : {
          warn: false,
          line: `redis    AOF with appendfsync ${durability.appendfsync}: a 202 survives a Redis restart; a crash of its machine can lose up to the last second of them (appendfsync always loses none)`,
        };
  }
  return {
    warn: true,
    line:
      durability.save === ""
        ? "redis    WARNING: this Redis persists nothing (appendonly no, no snapshots): a restart of Redis loses every accepted (202) request not yet applied; set appendonly yes"
        : `redis    WARNING: this Redis only snapshots (save ${durability.save}, appendonly no): a restart of Redis loses the accepted (202) requests since the last snapshot; set appendonly yes`,
  };
}
