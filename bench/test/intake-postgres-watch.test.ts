// The watch that shows the intake ran no Postgres query: the folding of its samples, and the sampling itself
// against the real Postgres with a connection named as the intake's are.
import { createPool } from "@floodgate/db";
import { describe, expect, it } from "vitest";
import { foldActivity, watchIntakePostgres } from "../src/audits/intake-postgres-watch.ts";
import { benchEnvironment } from "../src/harness/bench-environment.ts";

const row = (pid: number, active: boolean, started: string, query: string) => ({
  pid,
  active,
  started,
  query,
});

describe("foldActivity", () => {
  it("counts each (connection, start) seen active as one query, by text", () => {
    const folded = foldActivity(
      [
        [row(1, false, "t0", "select 1"), row(2, false, "t0", "")],
        [row(1, true, "t1", "select * from x"), row(2, false, "t0", "")],
        [row(1, true, "t1", "select * from x"), row(2, true, "t2", "select * from x")],
        [row(2, true, "t3", "select * from y")], // connection 1 closed after its query: still counted
      ],
      1500,
    );
    expect(folded).toEqual({
      connections: 2,
      connectionsThatQueried: 2,
      queries: [
        { query: "select * from x", seen: 2 },
        { query: "select * from y", seen: 1 },
      ],
      samples: 4,
      watchedMs: 1500,
    });
  });

  it("is zero when no connection did anything", () => {
    expect(foldActivity([[row(5, false, "t0", "select 1")], []])).toMatchObject({
      connections: 1,
      connectionsThatQueried: 0,
      queries: [],
    });
  });
});

describe("watchIntakePostgres", () => {
  it("sees a query an intake-named connection runs during the watch, and none from one left idle", async () => {
    // The server's own `postgres` database: no intake connects there, and nothing is created or changed.
    const url = new URL(benchEnvironment().floodgateDatabaseUrl);
    url.pathname = "/postgres";
    const name = `floodgate-intake-watch-test-${process.pid}`;
    const pool = createPool(url.toString(), { max: 1, applicationName: name });
    try {
      await pool.query("select 1");
      const idle = await watchIntakePostgres([url.toString()]);
      const quiet = await idle.stop();
      expect(quiet.connections).toBeGreaterThanOrEqual(1);
      // Its query ran before the watch began: not counted.
      expect(quiet.queries.map((q) => q.query)).not.toContain("select 1");

      const busy = await watchIntakePostgres([url.toString()]);
      await pool.query("select 2 as watched");
      const seen = await busy.stop();
      expect(seen.connectionsThatQueried).toBeGreaterThanOrEqual(1);
      expect(seen.queries).toContainEqual({ query: "select 2 as watched", seen: 1 });
    } finally {
      await pool.end();
    }
  });
});
