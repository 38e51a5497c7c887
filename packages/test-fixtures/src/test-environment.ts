// Each test file gets its own Redis key prefix and its own databases on the real local servers, so files run
// in parallel without seeing each other's data. Nothing is mocked.
import { randomBytes } from "node:crypto";
import { createApiKey } from "@floodgate/auth";
import { type Config, loadConfig } from "@floodgate/config";
import { createKysely, dropDatabases, ensureDatabases, type GlobalDatabase, migrateAll } from "@floodgate/db";
import { connectRedis } from "./redis-by-url.ts";
import { unlinkMatching } from "./redis-masters.ts";

export interface TestEnvironment {
  config: Config;
  /** A server key (`fg_sk_…`) stored in the file's global database: acts for any user. */
  serverKey: string;
  /** Deletes the file's Redis keys and drops its databases. */
  cleanup(): Promise<void>;
}

const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/**
 * The Redis a test file's environment uses: the shared one (TEST_REDIS_URL, default 127.0.0.1:6379), or, in
 * vitest's "cluster" project (FLOODGATE_TEST_REDIS=cluster), the 3+3 Redis Cluster its global setup started
 * for the whole run (cluster-global-setup.ts, whose URL cluster-test-setup.ts puts in the environment).
 */
export function testRedisUrl(): string {
  if (process.env.FLOODGATE_TEST_REDIS !== "cluster")
    return process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
  const url = process.env.FLOODGATE_TEST_REDIS_CLUSTER_URL;
  if (!url)
    throw new Error(
      "FLOODGATE_TEST_REDIS=cluster but no cluster URL: run the file in vitest's cluster project (--project cluster), whose global setup starts the cluster",
    );
  return url;
}

export interface TestEnvironmentOptions {
  shards?: number;
  env?: Record<string, string>;
}

export async function createTestEnvironment(
  name: string,
  options: TestEnvironmentOptions = {},
): Promise<TestEnvironment> {
  const id = `${name
    .replace(/[^a-z0-9]/gi, "")
    .toLowerCase()
    .slice(0, 20)}_${randomBytes(3).toString("hex")}`;
  const databaseUrl = withDatabase(POSTGRES_URL, `fgt_${id}`);
  const shardUrls = Array.from({ length: options.shards ?? 4 }, (_, i) =>
    withDatabase(POSTGRES_URL, `fgt_${id}_s${i}`),
  );
  const redisUrl = testRedisUrl();
  const config = loadConfig({
    REDIS_URL: redisUrl,
    REDIS_PREFIX: `fgt:${id}:`,
    DATABASE_URL: databaseUrl,
    SHARD_URLS: shardUrls.join(","),
    LOG_LEVEL: "warn",
    WORKER_METRICS_PORT: "0",
    INTAKE_METRICS_PORT: "0",
    // A test process stopping with SIGTERM has no load balancer to drain.
    SHUTDOWN_DRAIN_SECONDS: "0",
    // Most files send bursts from one user and one address; the admission tests turn limits on themselves.
    RATE_LIMITS: "off",
    // Test files share two cores, so an intake's event loop is sometimes late for reasons of the suite's own;
    // shedding then would refuse requests at random. load-shedding.test.ts turns it on and makes the lateness.
    LOAD_SHED_LOOP_DELAY_MS: "0",
    LOAD_SHED_REDIS_WAIT_MS: "0",
    ADMISSION_TOKEN_SECRET: randomBytes(32).toString("base64url"),
    CUSTOMER_TOKEN_SECRET: randomBytes(32).toString("base64url"),
    ...options.env,
  });
  await ensureDatabases([databaseUrl, ...shardUrls]);
  await migrateAll(databaseUrl, shardUrls);
  const serverKey = await createServerKey(databaseUrl, `test ${name}`);
  serverKeys.set(databaseUrl, serverKey);
  return {
    config,
    serverKey,
    async cleanup() {
      await deleteKeys(redisUrl, config.redisPrefix);
      await dropDatabases([databaseUrl, ...shardUrls]);
      serverKeys.delete(databaseUrl);
    },
  };
}

// The key each environment made, by its global database (where the key lives), so a test kit given only the
// app (app.config) can authenticate as the shop's server without every call site passing the key along. A
// copy of the environment's config with another setting changed ({ ...env.config, corsOrigins: [] }) keeps
// the database, and so the key.
const serverKeys = new Map<string, string>();

/** The server key createTestEnvironment stored for this config's global database. */
export function serverKeyFor(config: Config): string {
  const key = serverKeys.get(config.databaseUrl);
  if (key === undefined)
    throw new Error("this config was not made by createTestEnvironment: it has no server key");
  return key;
}

/** Through the same records function the admin route uses: the row is real, only its hash is stored. */
async function createServerKey(databaseUrl: string, name: string): Promise<string> {
  const db = createKysely<GlobalDatabase>(databaseUrl, { max: 1, applicationName: "floodgate-test-setup" });
  try {
    return (await createApiKey(db, name)).key;
  } finally {
    await db.destroy();
  }
}

function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Every key of the prefix, on every master when the Redis is a cluster. */
async function deleteKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = connectRedis(redisUrl);
  try {
    await unlinkMatching(redis, `${prefix}*`);
  } finally {
    redis.disconnect();
  }
}
