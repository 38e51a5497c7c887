// The durability settings of the shared Redis and Postgres, recorded with each result: an fsync-off Postgres
// or an AOF-off Redis changes every figure, and nothing else in the result would show it. CONFIG and INFO
// answer for one node: on a Redis Cluster each master is asked.
import { createPool } from "@floodgate/db";
import { connectRedis, forEachMaster } from "@floodgate/test-fixtures";
import type { Redis } from "ioredis";

export interface ServiceSettings {
  postgres: Record<string, string> | { error: string };
  redis: Record<string, string> | { error: string };
}

async function postgresSettings(url: string): Promise<Record<string, string>> {
  const pool = createPool(url, { max: 1, applicationName: "floodgate-bench" });
  try {
    const { rows } = await pool.query<Record<string, string>>(
      `select current_setting('server_version') as version, current_setting('fsync') as fsync,
        current_setting('synchronous_commit') as synchronous_commit, current_setting('shared_buffers') as shared_buffers,
        current_setting('max_connections') as max_connections`,
    );
    return rows[0] ?? {};
  } finally {
    await pool.end();
  }
}

/** Version and persistence of one Redis; of a cluster, every master's (a 202 is as safe as its master). */
async function redisSettings(url: string): Promise<Record<string, string>> {
  const redis = connectRedis(url, { maxRetriesPerRequest: 1 });
  try {
    const masters = await forEachMaster(redis, async (node) => ({
      node: `${node.options.host}:${node.options.port}`,
      settings: await nodeSettings(node),
    }));
    if (masters.length === 1) return masters[0]!.settings;
    return mergedSettings(masters);
  } finally {
    redis.disconnect();
  }
}

async function nodeSettings(redis: Redis): Promise<Record<string, string>> {
  const info = await redis.info("server");
  const version = /redis_version:(\S+)/.exec(info)?.[1] ?? "unknown";
  const settings: Record<string, string> = { version };
  for (const name of ["appendonly", "appendfsync", "save"]) {
    const [, value] = (await redis.config("GET", name).catch(() => [])) as string[];
    if (value !== undefined) settings[name] = value;
  }
  return settings;
}

/**
 * A cluster's settings as one record: a setting every master shares is given once; one they differ on lists
 * each master's value ("host:port=value, ..."), so the result shows the odd one out.
 */
function mergedSettings(
  masters: { node: string; settings: Record<string, string> }[],
): Record<string, string> {
  const merged: Record<string, string> = { masters: String(masters.length) };
  const names = new Set(masters.flatMap((master) => Object.keys(master.settings)));
  for (const name of names) {
    const values = masters.map((master) => master.settings[name] ?? "");
    merged[name] =
      new Set(values).size === 1
        ? values[0]!
        : masters.map((master, i) => `${master.node}=${values[i]}`).join(", ");
  }
  return merged;
}

export async function serviceSettings(postgresUrl: string, redisUrl: string): Promise<ServiceSettings> {
  const failed = (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) });
  const [postgres, redis] = await Promise.all([
    postgresSettings(postgresUrl).catch(failed),
    redisSettings(redisUrl).catch(failed),
  ]);
  return { postgres, redis };
}
