import { chmod, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { findOrStartPostgres } from "./find-or-start-postgres.ts";

const silent = () => {};
const tempDirs: string[] = [];

afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "floodgate-postgres-test-"));
  tempDirs.push(dir);
  await chmod(dir, 0o755); // as root the server runs as `postgres`, which must be able to reach the data dir
  return path.join(dir, "postgres");
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen({ port: 0, host: "127.0.0.1" }, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on("error", () => {});
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

describe("findOrStartPostgres", () => {
  it("returns the URLs of a Postgres that answers unchanged, starting nothing", async () => {
    const databaseUrl = "postgres://postgres@127.0.0.1:5432/floodgate_probe";
    const shardUrls = ["postgres://postgres@127.0.0.1:5432/floodgate_probe_shard_0"];
    const found = await findOrStartPostgres({
      databaseUrl,
      shardUrls,
      dataDir: await tempDataDir(),
      log: silent,
    });
    expect(found).toMatchObject({ databaseUrl, shardUrls, embedded: false });
    await found.stop();
    expect(await query("postgres://postgres@127.0.0.1:5432/postgres", "select 1 as one")).toEqual([
      { one: 1 },
    ]);
  });

  it("refuses to stand in for several servers when the first does not answer, naming DATABASE_URL", async () => {
    const [a, b] = [await freePort(), await freePort()];
    const attempt = findOrStartPostgres({
      databaseUrl: `postgres://postgres@127.0.0.1:${a}/floodgate`,
      shardUrls: [`postgres://postgres@127.0.0.1:${b}/floodgate_shard_0`],
      dataDir: await tempDataDir(),
      log: silent,
    });
    await expect(attempt).rejects.toThrow(/DATABASE_URL/);
  });

  it("starts an embedded Postgres on a free port, reuses its data on the next start, and stops it", async () => {
    const dataDir = await tempDataDir();
    const port = await freePort();
    const databaseUrl = `postgres://app:secret@localhost:${port}/postgres`;
    const shardUrls = [`postgres://app:secret@localhost:${port}/floodgate_shard_0`];
    const lines: string[] = [];

    const first = await findOrStartPostgres({
      databaseUrl,
      shardUrls,
      dataDir,
      log: (line) => lines.push(line),
    });
    try {
      expect(first.embedded).toBe(true);
      expect(lines).toHaveLength(1);
      const url = new URL(first.databaseUrl);
      expect(url.pathname).toBe("/postgres");
      expect(first.shardUrls.map((shard) => new URL(shard).pathname)).toEqual(["/floodgate_shard_0"]);
      expect(first.shardUrls.map((shard) => new URL(shard).port)).toEqual([url.port]);
      expect(await query(first.databaseUrl, "select 1 as one")).toEqual([{ one: 1 }]);
      await query(first.databaseUrl, "create table kept (id int)");
    } finally {
      await first.stop();
    }
    await expect(query(first.databaseUrl, "select 1")).rejects.toThrow();

    const second = await findOrStartPostgres({ databaseUrl, shardUrls, dataDir, log: silent });
    try {
      expect(await query(second.databaseUrl, "select count(*)::int as n from kept")).toEqual([{ n: 0 }]);
    } finally {
      await second.stop();
    }
    await expect(query(second.databaseUrl, "select 1")).rejects.toThrow();
  });
});
