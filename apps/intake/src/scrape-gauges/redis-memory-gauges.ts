// Redis's memory against its maxmemory, read at scrape time on the stats connection: with `noeviction` a full
// Redis refuses every write (the intake answers 503), and a surge fills it in minutes (infra/README.md, Sizing
// maxmemory). Per master on a cluster, never summed: each master has its own maxmemory and refuses the writes
// of its own slots when it is full, so a sum would hide the one master that is.
import { Gauge, type Registry } from "@floodgate/metrics";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { Cluster, type Redis } from "ioredis";
import { sharedRead } from "./shared-read.ts";

export interface RedisMemory {
  /** host:port of the master. */
  node: string;
  usedBytes: number;
  /** 0: no limit set. */
  maxBytes: number;
}

/** The figures of one INFO memory answer. */
export function parseMemoryInfo(info: string): { usedBytes: number; maxBytes: number } {
  const field = (name: string) => {
    const match = new RegExp(`^${name}:(\\d+)\\r?$`, "m").exec(info);
    if (!match) throw new Error(`INFO memory has no ${name}`);
    return Number(match[1]);
  };
  return { usedBytes: field("used_memory"), maxBytes: field("maxmemory") };
}

/** Every master's memory, at once; a master that does not answer is left out (no figure, not a stale one). */
export async function readRedisMemory(redis: ScriptedRedis): Promise<RedisMemory[]> {
  const nodes: Redis[] = redis instanceof Cluster ? redis.nodes("master") : [redis as Redis];
  const read = await Promise.allSettled(
    nodes.map(async (node) => ({
      node: `${node.options.host}:${node.options.port}`,
      ...parseMemoryInfo(await node.info("memory")),
    })),
  );
  return read.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
}

/** floodgate_redis_used_memory_bytes and floodgate_redis_maxmemory_bytes, by master (label `node`). */
export function registerRedisMemoryGauges(registry: Registry, redis: () => ScriptedRedis): void {
  // Both gauges are collected in the same scrape: they share one read per master.
  const read = sharedRead(() => readRedisMemory(redis()).catch((): RedisMemory[] => []));
  const gauge = (name: string, help: string, value: (memory: RedisMemory) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["node"] as const,
      registers: [registry],
      async collect() {
        const memory = await read();
        this.reset();
        for (const master of memory) this.set({ node: master.node }, value(master));
      },
    });
  gauge(
    "floodgate_redis_used_memory_bytes",
    "Memory Redis has allocated (INFO memory used_memory), per master; read at each scrape",
    (m) => m.usedBytes,
  );
  gauge(
    "floodgate_redis_maxmemory_bytes",
    "Redis's maxmemory (0: no limit), per master: past it, noeviction refuses writes and the intake answers 503",
    (m) => m.maxBytes,
  );
}
