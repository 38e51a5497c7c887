import type { Config } from "@floodgate/config";
import { createRedis, QueueKeys, type ScriptedRedis, waitForRedis } from "@floodgate/queue";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { markRedisErrors } from "../errors/store-errors.ts";

declare module "fastify" {
  interface FastifyInstance {
    /** The request connection: every command it sends is counted (floodgate_intake_redis_commands_total). */
    redis: ScriptedRedis;
    /** Queue-depth reads for /metrics, on their own connection so a scrape never shows up as request traffic. */
    statsRedis: ScriptedRedis;
    queueKeys: QueueKeys;
  }
}

export const redisPlugin = fp(async (app: FastifyInstance, { config }: { config: Config }) => {
  // Errors marked with their store, so problem-plugin.ts tells an unreachable Redis from a bug by type.
  const redis = markRedisErrors(
    createRedis(config.redisUrl, { autoPipelining: true, name: "floodgate-intake" }),
  );
  // Counts every command this connection sends, so /metrics shows the real Redis round trips per request.
  const sendCommand = redis.sendCommand.bind(redis) as (...args: unknown[]) => unknown;
  redis.sendCommand = ((...args: unknown[]) => {
    app.metrics.redisCommands.inc();
    return sendCommand(...args);
  }) as typeof redis.sendCommand;
  const statsRedis = markRedisErrors(createRedis(config.redisUrl, { name: "floodgate-intake-stats" }));
  for (const connection of [redis, statsRedis]) {
    connection.on("error", (error) => app.log.warn({ err: error.message }, "redis connection error"));
  }
  // Named, since inference over the union of one Redis and a cluster picks one of the two.
  app.decorate<ScriptedRedis>("redis", redis);
  app.decorate<ScriptedRedis>("statsRedis", statsRedis);
  app.decorate("queueKeys", new QueueKeys(config.redisPrefix, config.streamPartitions));
  // Start serving even when Redis is away (requests get 503 + Retry-After until it is back), but give it a
  // moment first so a normal start does not answer 503 to its first requests.
  await Promise.all([waitForRedis(redis, 5000), waitForRedis(statsRedis, 5000)]).catch(() =>
    app.log.warn("redis not ready yet; answering 503 until it is"),
  );
  app.addHook("onClose", async () => {
    await Promise.all(
      [redis, statsRedis].map((connection) => connection.quit().catch(() => connection.disconnect())),
    );
  });
});
