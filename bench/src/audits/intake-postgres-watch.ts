// The intake's budget allows no Postgres query per accepted request. Postgres keeps no per-client query count
// the bench could read without an extension, but pg_stat_activity shows, for every connection, when it opened and
// when its latest query started, with the query's text: each (connection, start) after the watch began is a query
// the intake ran during it. Sampled every 500 ms, so the count is a lower bound (queries on one connection
// between two samples show as one), but a query per request would show on nearly every sample. Pool connections
// close after 30 s idle, so a connection that queried and then closed within the watch is still seen.
import { createPool } from "@floodgate/db";

export interface QueriesByText {
  /** The query's text (200 characters at most); "" for a connection opened with no query yet. */
  query: string;
  /** Distinct (connection, start time) pairs seen with this text. */
  seen: number;
}

export interface IntakePostgresActivity {
  /** Intake connections to the run's databases seen during the watch. */
  connections: number;
  /** Of those, connections that opened or ran a query during the watch. */
  connectionsThatQueried: number;
  /** The queries seen started during the watch, by text. */
  queries: QueriesByText[];
  samples: number;
  /** Length of the watch. */
  watchedMs: number;
}

export interface ActivitySample {
  pid: number;
  /** Opened, or started its latest query, after the watch began (server clock). */
  active: boolean;
  /** When its latest query started (or it opened), as Postgres prints it: one query per distinct value. */
  started: string;
  query: string;
}

/** Folds samples into the figures above. */
export function foldActivity(
  samples: readonly (readonly ActivitySample[])[],
  watchedMs = 0,
): IntakePostgresActivity {
  const seen = new Set<number>();
  const queried = new Set<number>();
  const queries = new Map<string, string>(); // `${pid} ${started}` -> text
  for (const sample of samples) {
    for (const row of sample) {
      seen.add(row.pid);
      if (!row.active) continue;
      queried.add(row.pid);
      queries.set(`${row.pid} ${row.started}`, row.query);
    }
  }
  const byText = new Map<string, number>();
  for (const query of queries.values()) byText.set(query, (byText.get(query) ?? 0) + 1);
  return {
    connections: seen.size,
    connectionsThatQueried: queried.size,
    queries: [...byText].map(([query, count]) => ({ query, seen: count })),
    samples: samples.length,
    watchedMs,
  };
}

const SAMPLE_EVERY_MS = 500;

/** Watches the intake's connections to `databaseUrls` (read from the server's `postgres` database). */
export async function watchIntakePostgres(
  databaseUrls: readonly string[],
): Promise<{ stop(): Promise<IntakePostgresActivity> }> {
  const server = new URL(databaseUrls[0]!);
  server.pathname = "/postgres";
  const pool = createPool(server.toString(), { max: 1, applicationName: "floodgate-bench" });
  const databases = databaseUrls.map((url) => decodeURIComponent(new URL(url).pathname.slice(1)));
  const since = (await pool.query<{ t: string }>("select clock_timestamp()::text as t")).rows[0]!.t;
  const startedAt = Date.now();
  const samples: ActivitySample[][] = [];
  const sample = async () => {
    const { rows } = await pool.query<ActivitySample>(
      `select pid,
          (backend_start >= $2::timestamptz or coalesce(query_start >= $2::timestamptz, false)) as active,
          coalesce(query_start, backend_start)::text as started,
          left(coalesce(query, ''), 200) as query
         from pg_stat_activity where application_name like 'floodgate-intake%' and datname = any($1)`,
      [databases, since],
    );
    samples.push(rows);
  };
  await sample();
  let failure: Error | null = null;
  let pending: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    pending = pending.then(sample).catch((error: Error) => {
      failure ??= error;
    });
  }, SAMPLE_EVERY_MS);
  return {
    async stop() {
      clearInterval(timer);
      try {
        await pending;
        await sample();
        if (failure !== null) throw failure;
        return foldActivity(samples, Date.now() - startedAt);
      } finally {
        await pool.end();
      }
    },
  };
}
