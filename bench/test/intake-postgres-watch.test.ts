// The watch that shows the intake ran no Postgres query: the folding of its samples, and the sampling itself
// against the real Postgres with a connection named as the intake's are.
import { createPool } from "@floodgate/db";
import { describe, expect, it } from "vitest";
import { benchEnvironment } from "../src/bench-environment.ts";
import { foldActivity, watchIntakePostgres } from "../src/intake-postgres-watch.ts";

describe("foldActivity", () => {
  it("counts a connection as having queried if any sample saw it active", () => {
    const folded = foldActivity([
      [
        { pid: 1, active: false, query: "select 1" },
        { pid: 2, active: false, query: "" },
      ],
      [
        { pid: 1, active: true, query: "select * from api_keys" },
        { pid: 2, active: false, query: "" },
      ],
      [{ pid: 2, active: false, query: "" }], // pid 1 closed after its query: still counted
    ]);
    expect(folded).toEqual({
      connections: 2,
      connectionsThatQueried: 1,
      queries: ["select * from api_keys"],
      samples: 3,
    });
  });

  it("is zero when no connection did anything", () => {
    expect(foldActivity([[{ pid: 5, active: false, query: "select 1" }], []])).toMatchObject({
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
      expect(quiet.queries).not.toContain("select 1");

      const busy = await watchIntakePostgres([url.toString()]);
      await pool.query("select 2 as watched");
      const seen = await busy.stop();
      expect(seen.connectionsThatQueried).toBeGreaterThanOrEqual(1);
      expect(seen.queries).toContain("select 2 as watched");
    } finally {
      await pool.end();
    }
  });
});
