// What the order tests run against: a test environment with the admin key, the real intake (inject), one
// in-process worker, and direct connections to Redis, the global database and every shard for assertions.
import { createKysely, type GlobalDatabase, type ShardDatabase } from "@floodgate/db";
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { Kysely } from "kysely";
import { ADMIN_KEY } from "./coupon-client.ts";
import { type InProcessWorker, startInProcessWorker } from "./in-process-worker.ts";
import { type IntakeApp, startIntake } from "./intake-client.ts";

export interface OrdersStack {
  env: TestEnvironment;
  app: IntakeApp;
  redis: ScriptedRedis;
  keys: QueueKeys;
  global: Kysely<GlobalDatabase>;
  shards: Kysely<ShardDatabase>[];
  worker: InProcessWorker;
  stop(): Promise<void>;
}

export async function startOrdersStack(name: string): Promise<OrdersStack> {
  const env = await createTestEnvironment(name, { env: { ADMIN_API_KEY: ADMIN_KEY } });
  const app = await startIntake(env.config);
  const redis = createRedis(env.config.redisUrl);
  await waitForRedis(redis);
  const global = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 1 });
  const shards = env.config.shardUrls.map((url) => createKysely<ShardDatabase>(url, { max: 1 }));
  const worker = await startInProcessWorker(env.config, name);
  return {
    env,
    app,
    redis,
    keys: new QueueKeys(env.config.redisPrefix, env.config.streamPartitions),
    global,
    shards,
    worker,
    async stop() {
      await worker.stop();
      await app.close();
      redis.disconnect();
      await Promise.all([global, ...shards].map((db) => db.destroy()));
      await env.cleanup();
    },
  };
}
