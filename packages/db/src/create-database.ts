import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";

// bigint (int8) columns arrive as numbers: amounts are capped at 10^12 and balances stay far below 2^53.
pg.types.setTypeParser(20, (value) => Number(value));

export interface PoolOptions {
  max?: number;
  applicationName?: string;
  /** Postgres `lock_timeout`: a statement waiting longer for a row lock fails with 55P03. Off when unset. */
  lockTimeoutMs?: number;
  /** Postgres `random_page_cost` for this pool's sessions (see the worker's batch-pools.ts). Server's when unset. */
  randomPageCost?: number;
}

export function createPool(url: string, options: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName ?? "floodgate",
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
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
}

export function createKysely<DB>(url: string, options: KyselyOptions = {}): Kysely<DB> {
  const pool = createPool(url, options);
  const { onNewConnection } = options;
  return new Kysely<DB>({
    dialect: new PostgresDialect({ pool: onNewConnection ? checkedPool(pool, onNewConnection) : pool }),
  });
}

function checkedPool(pool: pg.Pool, check: (client: pg.PoolClient) => Promise<void>) {
  const checked = new WeakSet<pg.PoolClient>();
  return {
    async connect() {
      const client = await pool.connect();
      if (checked.has(client)) return client;
      try {
        await check(client);
      } catch (error) {
        client.release(error as Error); // destroyed, not returned to the pool
        throw error;
      }
      checked.add(client);
      return client;
    },
    end: () => pool.end(),
  };
}
