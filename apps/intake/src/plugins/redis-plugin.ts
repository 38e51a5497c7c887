import type { Config } from "@floodgate/config";
import { QueueKeys } from "@floodgate/queue";
import { createRedis, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { markRedisErrors } from "../errors/store-errors.ts";
import type { LoadShedder } from "../load-shedding/load-shedder.ts";

declare module "fastify" {
  interface FastifyInstance {
    /** The request connection: every command it sends is counted (floodgate_intake_redis_commands_total). */
    redis: ScriptedRedis;
    /** Queue-depth reads for /metrics, on their own connection so a scrape never shows up as request traffic. */
    statsRedis: ScriptedRedis;
    queueKeys: QueueKeys;
  }
}

export interface RedisPluginOptions {
  config: Config;
  /** Hears how long each command waited for its answer (a load-shedding signal); none in some tests. */
  shedder?: LoadShedder;
}

export const redisPlugin = fp(async (app: FastifyInstance, { config, shedder }: RedisPluginOptions) => {
  // Errors marked with their store, so problem-plugin.ts tells an unreachable Redis from a bug by type.
  const redis = markRedisErrors(
    createRedis(config.redisUrl, { autoPipelining: true, name: "floodgate-intake" }),
  );
  // Counts every command this connection sends, so /metrics shows the real Redis round trips per request,
  // and times its answer for the load shedder: when Redis falls behind, requests queue here, not in the loop.
  const sendCommand = redis.sendCommand.bind(redis) as (...args: unknown[]) => unknown;
  const timed = shedder?.enabled === true && shedder.limits.redisWaitMs > 0 ? shedder : undefined;
  redis.sendCommand = ((...args: unknown[]) => {
    app.metrics.redisCommands.inc();
    const answer = sendCommand(...args);
    if (timed !== undefined) {
      const sentAt = performance.now();
      const note = () => timed.noteRedisWait(performance.now() - sentAt);
      (answer as Promise<unknown>).then(note, note);
    }
    return answer;
  }) as typeof redis.sendCommand;
  // Auto-pipelined too: a scrape reads one key per partition, coupon and product, each of its own slot (a cluster
  // refuses a pipeline across slots), all at once; batched, they cost one write per node instead of one each.
  const statsRedis = markRedisErrors(
    createRedis(config.redisUrl, { autoPipelining: true, name: "floodgate-intake-stats" }),
  );
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
