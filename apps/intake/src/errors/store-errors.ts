// Which store failed a request, and whether that is the store being unavailable (a 503 the client retries) or
// a bug (a 500). Decided by type, never by message text: every command of the intake's Redis connections and
// every query of its pools marks the errors it rejects with the store's name, and the kind of error says the rest.
import type { Cluster, Redis } from "ioredis";
import { ReplyError } from "ioredis";
import { MaxRetriesPerRequestError } from "ioredis/built/errors/index.js";
import type { PostgresPool, PostgresPoolClient } from "kysely";

/** What a connection sends (the same for one Redis and for a cluster). */
type Command = Parameters<Redis["sendCommand"]>[0];

const STORE = Symbol("floodgate.store");

/** "redis", "global database" or "shard <i> database": the store an error came from. */
export type StoreName = string;

function mark(error: unknown, store: StoreName): unknown {
  if (error !== null && typeof error === "object" && !(STORE in error))
    Object.defineProperty(error, STORE, { value: store });
  return error;
}

function storeOf(error: unknown): StoreName | undefined {
  return error !== null && typeof error === "object" && STORE in error
    ? (error as { [STORE]: StoreName })[STORE]
    : undefined;
}

function markNestedErrors(reply: unknown): void {
  if (!Array.isArray(reply)) return;
  for (const element of reply) if (element instanceof Error) mark(element, "redis");
}

/**
 * Marks the errors of every command this connection sends (scripts, pipelines and MULTI included), and of the
 * pipelines and cluster waits that fail before any command is sent.
 */
export function markRedisErrors<R extends Redis | Cluster>(redis: R): R {
  const sendCommand = redis.sendCommand.bind(redis) as (command: Command, ...rest: unknown[]) => unknown;
  redis.sendCommand = ((command: Command, ...rest: unknown[]) => {
    // Attached before the command can fail, so it runs before whoever awaits the command. A script that takes
    // many requests answers a request whose part failed with an error inside its reply (each-request.lua in
    // @floodgate/redis-scripts): marked too, so an OOM there is a 503 as it is for a whole command.
    command.promise.then(markNestedErrors, (error: unknown) => mark(error, "redis"));
    return sendCommand(command, ...rest);
  }) as typeof redis.sendCommand;
  // A pipeline (auto-pipelining puts every command in one) can fail whole before it sends anything: on a
  // cluster when the slot map changed under it between its first command and its write (a failover's MOVED
  // replies update it slot by slot). Each of its callers then gets the pipeline's error, not a command's.
  const pipeline = redis.pipeline.bind(redis);
  redis.pipeline = ((...args: Parameters<typeof pipeline>) => {
    const made = pipeline(...args);
    (made as unknown as { promise: Promise<unknown> }).promise.catch((error: unknown) =>
      mark(error, "redis"),
    );
    return made;
  }) as typeof redis.pipeline;
  // A cluster client without a slot map (no node has answered yet) holds commands and pipelines here, and
  // fails them with its own error ("None of startup nodes is available") before any reaches a node.
  if (redis.isCluster) {
    const cluster = redis as Cluster;
    const delayUntilReady = cluster.delayUntilReady.bind(cluster);
    cluster.delayUntilReady = (callback) =>
      delayUntilReady((error, ...rest) =>
        callback(error == null ? error : (mark(error, "redis") as Error), ...rest),
      );
  }
  return redis;
}

/** The pool Kysely uses, its connect and query errors marked with the store's name. */
export function markPoolErrors(pool: PostgresPool, store: StoreName): PostgresPool {
  const rethrow = (error: unknown) => {
    throw mark(error, store);
  };
  return {
    connect: async () => {
      const client = await pool.connect().catch(rethrow);
      return {
        query: ((...args: [unknown, unknown]) => {
          const result = (client.query as (...a: unknown[]) => unknown)(...args);
          return result instanceof Promise ? result.catch(rethrow) : result;
        }) as PostgresPoolClient["query"],
        release: () => client.release(),
      };
    },
    end: () => pool.end(),
  };
}

// Redis names an error's kind by the first word of its reply (the protocol's error code): these say the server
// cannot take the command now (loading, out of memory, failing to persist, a replica, a script running long, a
// cluster slot that moved: MOVED/ASK surface when ioredis does not follow them, as in a pipeline with a WAIT).
const REDIS_UNAVAILABLE_CODES = new Set([
  "MOVED",
  "ASK",
  "LOADING",
  "MISCONF",
  "OOM",
  "READONLY",
  "MASTERDOWN",
  "NOREPLICAS",
  "BUSY",
  "TRYAGAIN",
  "CLUSTERDOWN",
]);

// SQLSTATE classes and codes that are the database's state, not the statement's fault: connection (08),
// insufficient resources (53), operator intervention (57: shutdown, cannot connect now, statement timeout),
// read-only transaction (25006, a failover), invalid authorization (28), missing database (3D000).
const PG_UNAVAILABLE_CLASSES = new Set(["08", "53", "57", "28"]);
const PG_UNAVAILABLE_CODES = new Set(["25006", "3D000"]);

/** The store that is unavailable, when this error says one is; null when it is anything else (a bug). */
export function unavailableStore(error: unknown): StoreName | null {
  const store = storeOf(error);
  if (store === undefined) return null;
  if (store === "redis") {
    if (error instanceof MaxRetriesPerRequestError) return store;
    // Not a reply from Redis: the client's own failure to reach it (closed, not writable, timed out).
    if (!(error instanceof ReplyError)) return store;
    const code = (error as Error).message.split(" ", 1)[0] ?? "";
    return REDIS_UNAVAILABLE_CODES.has(code) ? store : null;
  }
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  // A server's answer carries a severity and a SQLSTATE; anything else failed to reach the server.
  if (typeof severity !== "string" || typeof code !== "string") return store;
  return PG_UNAVAILABLE_CLASSES.has(code.slice(0, 2)) || PG_UNAVAILABLE_CODES.has(code) ? store : null;
}
