import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from "kysely";
import pg from "pg";
import { StoreUnavailableError, storeUnavailable } from "./store-unavailable-error.ts";

// bigint (int8) columns arrive as numbers: amounts are capped at 10^12 and balances stay far below 2^53.
pg.types.setTypeParser(20, (value) => Number(value));

/** The bounds every pool gets unless told otherwise (PG_* settings in @floodgate/config). */
export const DEFAULT_POSTGRES_TIMEOUTS = {
  statementMs: 30_000,
  queryMs: 35_000,
  connectMs: 5_000,
  keepAliveMs: 10_000,
} as const;

export type PostgresTimeouts = { -readonly [K in keyof typeof DEFAULT_POSTGRES_TIMEOUTS]: number };

export interface PoolOptions {
  max?: number;
  applicationName?: string;
  /** Postgres `lock_timeout`: a statement waiting longer for a row lock fails with 55P03. Off when unset. */
  lockTimeoutMs?: number;
  /** Postgres `random_page_cost` for this pool's sessions (see the worker's batch-pools.ts). Server's when unset. */
  randomPageCost?: number;
  /** Statement, client-side query, connect and TCP keepalive bounds; DEFAULT_POSTGRES_TIMEOUTS where unset. */
  timeouts?: Partial<PostgresTimeouts>;
}

// A server that stops answering (frozen, a dead host, a cable pulled) fails nothing by itself: without these a
// query waits forever. statement_timeout bounds what the server does; query_timeout, a little longer, is the
// client's own bound for a server that cannot even say so; keepalive finds a dead peer on an idle connection.
export function createPool(url: string, options: PoolOptions = {}): pg.Pool {
  const timeouts = { ...DEFAULT_POSTGRES_TIMEOUTS, ...options.timeouts };
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName ?? "floodgate",
    connectionTimeoutMillis: timeouts.connectMs,
    idleTimeoutMillis: 30_000,
    statement_timeout: timeouts.statementMs,
    query_timeout: timeouts.queryMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: timeouts.keepAliveMs,
    ...(options.lockTimeoutMs ? { lock_timeout: options.lockTimeoutMs } : {}),
    ...(options.randomPageCost ? { options: sessionOptions(options.randomPageCost) } : {}),
  });
  // A client losing its server (a shard restart) must not crash the process. Idle: the pool reports it here and
  // drops the client. Checked out (mid-transaction): the pool listens no more, so without this listener the
  // client's 'error' event is uncaught; the query in flight rejects on its own, and release() drops the client.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  return pool;
}

/**
 * Startup `options` carrying our setting, with the operator's PGOPTIONS after it so that theirs wins (Postgres
 * applies them in order). An `options` in the URL replaces all of this: node-postgres lets the URL win.
 */
function sessionOptions(randomPageCost: number): string {
  return [`-c random_page_cost=${randomPageCost}`, process.env.PGOPTIONS].filter(Boolean).join(" ");
}

export interface KyselyOptions extends PoolOptions {
  /**
   * Runs once on each new connection, before its first use. A throw discards the connection and fails the
   * query that asked for it. (Kysely's own onCreateConnection would keep a connection whose hook threw.)
   */
  onNewConnection?: (client: pg.PoolClient) => Promise<void>;
  /** Wraps the pool Kysely sees (e.g. to mark its errors with the store's name), over the typed failures. */
  decoratePool?: (pool: PostgresPool) => PostgresPool;
}

export function createKysely<DB>(url: string, options: KyselyOptions = {}): Kysely<DB> {
  const pool = typedFailures(createPool(url, options), options.onNewConnection);
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool: options.decoratePool?.(pool) ?? pool }) });
}

/**
 * The pool as Kysely sees it, with failures typed: a connection that cannot be had, and a query that fails
 * for any reason but the server's answer (the driver's connection errors and its query timeout carry no
 * code), become StoreUnavailableError, as do the server's infrastructure SQLSTATEs.
 *
 * A client whose query failed that way is destroyed on release, not reused: after a query timeout its
 * statement may still be running and its transaction open, and node-postgres drops a ROLLBACK that times out
 * in its queue, so the next user of that client would send its statements into the old transaction.
 */
function typedFailures(pool: pg.Pool, check?: (client: pg.PoolClient) => Promise<void>): PostgresPool {
  const checked = new WeakSet<pg.PoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    let broken: Error | undefined;
    const wrapper = {
      query(sql: string, parameters: readonly unknown[]) {
        return client.query(sql, parameters as unknown[]).catch((error: unknown) => {
          if (error instanceof pg.DatabaseError) throw storeUnavailable(error, "postgres") ?? error;
          broken = error as Error;
          throw new StoreUnavailableError("postgres", (error as { code?: string }).code, error);
        });
      },
      release: () => client.release(broken ?? false),
    };
    return wrapper as unknown as PostgresPoolClient;
  };
  return {
    async connect() {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw new StoreUnavailableError("postgres", (error as { code?: string }).code, error);
      }
      if (check !== undefined && !checked.has(client)) {
        try {
          await check(client);
        } catch (error) {
          client.release(error as Error); // destroyed, not returned to the pool
          throw error;
        }
        checked.add(client);
      }
      // A wrapper per checkout, so a failure of one checkout never follows the client into the next.
      return wrap(client);
    },
    end: () => pool.end(),
  };
}
