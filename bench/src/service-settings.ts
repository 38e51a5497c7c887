// The durability settings of the shared Redis and Postgres, recorded with each result: an fsync-off Postgres
// or an AOF-off Redis changes every figure, and nothing else in the result would show it.
import { createPool } from "@floodgate/db";
import { Redis } from "ioredis";

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

async function redisSettings(url: string): Promise<Record<string, string>> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    const info = await redis.info("server");
    const version = /redis_version:(\S+)/.exec(info)?.[1] ?? "unknown";
    const settings: Record<string, string> = { version };
    for (const name of ["appendonly", "appendfsync", "save"]) {
      const [, value] = (await redis.config("GET", name).catch(() => [])) as string[];
      if (value !== undefined) settings[name] = value;
    }
    return settings;
  } finally {
    redis.disconnect();
  }
}

export async function serviceSettings(postgresUrl: string, redisUrl: string): Promise<ServiceSettings> {
  const failed = (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) });
  const [postgres, redis] = await Promise.all([
    postgresSettings(postgresUrl).catch(failed),
    redisSettings(redisUrl).catch(failed),
  ]);
  return { postgres, redis };
}
