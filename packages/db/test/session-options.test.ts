// A pool's random_page_cost reaches its Postgres sessions, and an operator's own setting, in PGOPTIONS or in the
// URL's `options`, still wins. Read back with SHOW on the real server.
import { afterEach, describe, expect, it } from "vitest";
import { createPool } from "../src/create-database.ts";

const SERVER = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const savedPgOptions = process.env.PGOPTIONS;

afterEach(() => {
  if (savedPgOptions === undefined) delete process.env.PGOPTIONS;
  else process.env.PGOPTIONS = savedPgOptions;
});

async function randomPageCostOf(url: string, randomPageCost?: number): Promise<string> {
  const pool = createPool(url, { max: 1, ...(randomPageCost ? { randomPageCost } : {}) });
  try {
    const { rows } = await pool.query<{ random_page_cost: string }>("show random_page_cost");
    return rows[0]!.random_page_cost;
  } finally {
    await pool.end();
  }
}

describe("PoolOptions.randomPageCost", () => {
  it("sets the session's random_page_cost, and leaves the server's when unset", async () => {
    delete process.env.PGOPTIONS;
    expect(await randomPageCostOf(SERVER, 1.1)).toBe("1.1");
    expect(await randomPageCostOf(SERVER)).not.toBe("1.1");
  });

  it("yields to the operator's PGOPTIONS and to an options parameter in the URL", async () => {
    process.env.PGOPTIONS = "-c random_page_cost=2";
    expect(await randomPageCostOf(SERVER, 1.1)).toBe("2");
    delete process.env.PGOPTIONS;
    const url = new URL(SERVER);
    url.searchParams.set("options", "-c random_page_cost=3");
    expect(await randomPageCostOf(url.toString(), 1.1)).toBe("3");
  });
});
