import { defineScripts, type ScriptedRedis } from "@floodgate/redis-scripts";
import { Redis, type RedisOptions } from "ioredis";

export interface RedisConnectionOptions {
  /**
   * Hot-path connections pipeline every concurrent command into one write (ioredis auto-pipelining): each
   * request still costs one round trip, but thousands share a syscall.
   */
  autoPipelining?: boolean;
  /** Blocking readers must not time out while BLOCK waits. */
  blocking?: boolean;
  name?: string;
}

export function createRedis(url: string, options: RedisConnectionOptions = {}): ScriptedRedis {
  const redisOptions: RedisOptions = {
    connectionName: options.name,
    enableAutoPipelining: options.autoPipelining ?? false,
    // Fail fast while Redis is away: the intake answers 503 + Retry-After instead of queueing requests in
    // memory that it could not store (an accepted request must be in Redis).
    enableOfflineQueue: false,
    maxRetriesPerRequest: options.blocking ? null : 1,
    commandTimeout: options.blocking ? undefined : 2000,
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 2000),
    lazyConnect: false,
  };
  return defineScripts(new Redis(url, redisOptions));
}

/**
 * A pub/sub connection: it queues its SUBSCRIBE until Redis answers (a start while Redis is away still
 * subscribes), never gives up on a command, and reconnects with a capped backoff; ioredis subscribes again
 * after a reconnect, and callers that need to know listen for "ready".
 */
export function createSubscriber(url: string, name: string): Redis {
  return new Redis(url, {
    connectionName: name,
    maxRetriesPerRequest: null,
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 2000),
  });
}

/** Resolves once the connection is ready (commands fail fast before that, by design). */
export async function waitForRedis(redis: ScriptedRedis, timeoutMs = 10_000): Promise<void> {
  if (redis.status === "ready") return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Redis not ready after ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const cleanup = () => {
      clearTimeout(timer);
      redis.off("ready", onReady);
    };
    redis.on("ready", onReady);
  });
}
