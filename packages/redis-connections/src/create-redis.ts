// Every connection to the app's Redis is made here, from REDIS_URL: one Redis (redis://, rediss://) or a Redis
// Cluster by its seed nodes (redis+cluster://, rediss+cluster://), with the same failure behaviour either way.
import { doublingDelayMs } from "@floodgate/backoff";
import { parseRedisUrl, type RedisTarget } from "@floodgate/config";
import { defineScripts, type ScriptedRedis, SELF_BATCHED_COMMANDS } from "@floodgate/redis-scripts";
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from "ioredis";

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

/** A connection to one Redis or to a cluster, as REDIS_URL says; both speak the same commands. */
export type RedisConnection = Redis | Cluster;

/** Reconnects back off to 2 s and never give up: Redis coming back must find us trying. */
const reconnectDelay = (attempt: number) => doublingDelayMs({ firstMs: 100, maxMs: 2000 }, attempt);

const targetOf = (target: RedisTarget | string): RedisTarget =>
  typeof target === "string" ? parseRedisUrl(target) : target;

export function createRedis(
  target: RedisTarget | string,
  options: RedisConnectionOptions = {},
): ScriptedRedis {
  const perConnection = {
    connectionName: options.name,
    maxRetriesPerRequest: options.blocking ? null : 1,
    commandTimeout: options.blocking ? undefined : 2000,
  } satisfies RedisOptions;
  const resolved = targetOf(target);
  if (resolved.kind === "cluster") {
    return defineScripts(
      new Cluster(
        resolved.nodes,
        clusterOptions(resolved, perConnection, {
          enableAutoPipelining: options.autoPipelining ?? false,
          autoPipeliningIgnoredCommands: [...SELF_BATCHED_COMMANDS],
          enableOfflineQueue: false,
        }),
      ),
    );
  }
  const redisOptions: RedisOptions = {
    ...perConnection,
    enableAutoPipelining: options.autoPipelining ?? false,
    autoPipeliningIgnoredCommands: [...SELF_BATCHED_COMMANDS],
    // Fail fast while Redis is away: the intake answers 503 + Retry-After instead of queueing requests in
    // memory that it could not store (an accepted request must be in Redis).
    enableOfflineQueue: false,
    retryStrategy: reconnectDelay,
    lazyConnect: false,
  };
  return defineScripts(new Redis(resolved.url, redisOptions));
}

/**
 * A pub/sub connection: it queues its SUBSCRIBE until Redis answers (a start while Redis is away still
 * subscribes), never gives up on a command, and reconnects with a capped backoff; ioredis subscribes again
 * after a reconnect, and callers that need to know listen for "ready". On a cluster, PUBLISH reaches every
 * node, so one subscribed node hears all.
 */
export function createSubscriber(target: RedisTarget | string, name: string): RedisConnection {
  const resolved = targetOf(target);
  if (resolved.kind === "cluster") {
    return new Cluster(
      resolved.nodes,
      clusterOptions(resolved, { connectionName: name, maxRetriesPerRequest: null }, {}),
    );
  }
  return withHandledResubscribes(
    new Redis(resolved.url, {
      connectionName: name,
      maxRetriesPerRequest: null,
      retryStrategy: reconnectDelay,
    }),
  );
}

/** The commands ioredis sends itself, unawaited, when a subscriber is ready again after a reconnect. */
const RESUBSCRIBE_COMMANDS = ["select", "subscribe", "psubscribe", "ssubscribe"] as const;

/**
 * ioredis subscribes again after a reconnect with commands whose promises nobody holds; one still unanswered
 * when the connection is closed (a shutdown right after Redis came back) is rejected "Connection is closed."
 * as an unhandled rejection, which ends a Node process. Every promise these methods return gets a handler
 * here, so that rejection is dropped; a caller's own `.then` or `await` still sees it.
 */
function withHandledResubscribes(connection: Redis): Redis {
  const methods = connection as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of RESUBSCRIBE_COMMANDS) {
    const send = methods[name]!.bind(connection);
    methods[name] = (...args: unknown[]) => {
      const answer = send(...args);
      if (answer instanceof Promise) answer.catch(() => {});
      return answer;
    };
  }
  return connection;
}

/**
 * A BullMQ connection (order expiries, webhook deliveries): BullMQ's worker blocks on Redis and must retry
 * forever; the queue side fails fast like the rest. Otherwise ioredis' defaults, which BullMQ expects (its
 * offline queue holds commands across a reconnect).
 */
export function createJobQueueConnection(
  target: RedisTarget | string,
  options: { name: string; blocking: boolean },
): RedisConnection {
  const perConnection = {
    connectionName: options.name,
    maxRetriesPerRequest: options.blocking ? null : 1,
  } satisfies RedisOptions;
  const resolved = targetOf(target);
  if (resolved.kind === "cluster")
    return new Cluster(resolved.nodes, clusterOptions(resolved, perConnection, {}));
  return new Redis(resolved.url, perConnection);
}

/**
 * Per-node options (timeouts, credentials, TLS) go in redisOptions; the cluster's own reconnect strategy
 * replaces retryStrategy. Reads go to masters: a replica may not have the write a request just made.
 */
function clusterOptions(
  target: Extract<RedisTarget, { kind: "cluster" }>,
  perNode: NonNullable<ClusterOptions["redisOptions"]>,
  own: ClusterOptions,
): ClusterOptions {
  return {
    ...own,
    scaleReads: "master",
    clusterRetryStrategy: reconnectDelay,
    // The slot map is fetched at connect and after a MOVED or a failover; a busy node gets 2 s to answer.
    slotsRefreshTimeout: 2000,
    lazyConnect: false,
    redisOptions: {
      ...perNode,
      ...(target.username !== undefined ? { username: target.username } : {}),
      ...(target.password !== undefined ? { password: target.password } : {}),
      ...(target.tls ? { tls: {} } : {}),
    },
  };
}

/** Resolves once the connection is ready (commands fail fast before that, by design). */
export async function waitForRedis(redis: RedisConnection, timeoutMs = 10_000): Promise<void> {
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
