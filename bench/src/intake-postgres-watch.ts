// The intake's budget allows no Postgres query per accepted request. Postgres keeps no per-client query count
// the bench could read without an extension, but pg_stat_activity shows, for every connection, when it opened and
// when its latest query started: an intake connection (application_name floodgate-intake-*) that opened or
// started a query after the watch began ran at least one query during it. Pool connections close after 30 s
// idle, so a sample every 500 ms still sees one that queried and then closed within the phase.
import { createPool } from "@floodgate/db";

export interface IntakePostgresActivity {
  /** Intake connections to the run's databases seen during the watch. */
  connections: number;
  /** Of those, connections that opened or ran a query during the watch: 0 means no query at all. */
  connectionsThatQueried: number;
  /** The latest query of each connection that queried (the text says what it was: a cache load, a probe...). */
  queries: string[];
  samples: number;
}

export interface ActivitySample {
  pid: number;
  /** Opened, or started its latest query, after the watch began (server clock). */
  active: boolean;
  query: string;
}

/** Folds samples into the figures above: a connection counts as having queried if any sample says so. */
export function foldActivity(samples: readonly (readonly ActivitySample[])[]): IntakePostgresActivity {
  const seen = new Set<number>();
  const queried = new Set<number>();
  const queries = new Set<string>();
  for (const sample of samples) {
    for (const row of sample) {
      seen.add(row.pid);
      if (!row.active) continue;
      queried.add(row.pid);
      if (row.query !== "") queries.add(row.query);
    }
  }
  return {
    connections: seen.size,
    connectionsThatQueried: queried.size,
    queries: [...queries],
    samples: samples.length,
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
  const samples: ActivitySample[][] = [];
  const sample = async () => {
    const { rows } = await pool.query<ActivitySample>(
      `select pid, (backend_start >= $2::timestamptz or coalesce(query_start >= $2::timestamptz, false)) as active,
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
        return foldActivity(samples);
      } finally {
        await pool.end();
      }
    },
  };
}
