// One typed failure for "a store (Postgres or Redis) cannot serve us right now": the message or request is
// fine and must wait. Workers retry it and never count it toward dead-lettering; the intake can answer 503.
// Decided from the error's type and code (SQLSTATE, node's errno, Redis' error code), never from its text.

export type Store = "postgres" | "redis";

export class StoreUnavailableError extends Error {
  readonly code = "store_unavailable";
  readonly retryable = true;
  readonly store: Store;
  /** SQLSTATE, node errno code or Redis error code of the failure, when it had one. */
  readonly reason: string | undefined;

  constructor(store: Store, reason: string | undefined, cause: unknown) {
    super(
      `${store} unavailable${reason ? ` (${reason})` : ""}: ${(cause as Error)?.message ?? String(cause)}`,
      {
        cause,
      },
    );
    this.name = "StoreUnavailableError";
    this.store = store;
    this.reason = reason;
  }
}

// 08 connection, 28 auth, 3D000 missing database, 25006 read-only (a failover to a standby), 53 insufficient
// resources, 57P01-57P04 admin shutdown / crash / cannot connect now / dropped database, 57014 a statement
// timeout (the shard is slow), 40001/40P01 serialization failure / deadlock, 55P03 lock timeout, 58 system
// errors (I/O). None is the statement's fault: the same statement succeeds once the server is well.
const POSTGRES_INFRASTRUCTURE = /^(08|28|53|58|57P0[1-4]$|57014$|3D000$|25006$|40001$|40P01$|55P03$)/;

/** node's socket and resolver errors: the network or the server is away. */
export const NODE_SOCKET_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
]);

// Redis' own error codes (the first word of an error reply, by protocol) for a server that cannot serve now.
const REDIS_UNAVAILABLE = new Set([
  "LOADING",
  "READONLY",
  "MASTERDOWN",
  "BUSY",
  "TRYAGAIN",
  "CLUSTERDOWN",
  "OOM",
  "NOREPLICAS",
]);

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
};

export function isPostgresInfrastructureCode(sqlstate: string): boolean {
  return POSTGRES_INFRASTRUCTURE.test(sqlstate);
}

/**
 * The failure as a StoreUnavailableError if it is the store's, else undefined (the statement's or the
 * program's own failure). For Postgres this sees what the server reported (a SQLSTATE) and node's socket
 * errors; the pool wrapper of create-database.ts turns the driver's code-less connection failures into
 * StoreUnavailableError before they get here.
 */
export function storeUnavailable(error: unknown, store: Store): StoreUnavailableError | undefined {
  if (error instanceof StoreUnavailableError) return error;
  if (error instanceof AggregateError) {
    // node's happy-eyeballs connect reports every address it tried in one AggregateError.
    const inner = error.errors.map((e) => storeUnavailable(e, store));
    if (inner.length > 0 && inner.every(Boolean))
      return new StoreUnavailableError(store, inner[0]!.reason, error);
  }
  const code = codeOf(error);
  if (code && NODE_SOCKET_CODES.has(code)) return new StoreUnavailableError(store, code, error);
  if (store === "postgres") {
    return code && isPostgresInfrastructureCode(code)
      ? new StoreUnavailableError(store, code, error)
      : undefined;
  }
  // ioredis: an error reply is a ReplyError whose code is its first word; anything else a command rejects
  // with is the connection's (closed, refused, out of retries, timed out).
  if ((error as Error | null)?.name === "ReplyError") {
    const replyCode = String((error as Error).message).split(" ", 1)[0]!;
    return REDIS_UNAVAILABLE.has(replyCode) ? new StoreUnavailableError(store, replyCode, error) : undefined;
  }
  return error instanceof Error ? new StoreUnavailableError(store, code, error) : undefined;
}
