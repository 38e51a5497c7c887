// Every `./floodgate` command typed with --help or with a typo, as an operator types it: it prints its usage
// and changes nothing (no database created, no Redis key written, no port opened, no result file), exiting 0
// for --help and 2 for the typo. The configuration points at a database that does not exist, so a command
// that ran anyway would create it.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { connect, createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const name = `fgt_clihelp_${randomBytes(3).toString("hex")}`;
const prefix = `fgt:${name}:`;

function databaseUrl(database: string): string {
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

async function withPostgres<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** The databases named after this file's name: the global one and its default shards (`<name>_shard_i`). */
const ourDatabases = () =>
  withPostgres(async (client) => {
    const { rows } = await client.query<{ datname: string }>(
      "select datname from pg_database where left(datname, length($1)) = $1",
      [name],
    );
    return rows.map((row) => row.datname);
  });

async function ourRedisKeys(): Promise<string[]> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true });
  await redis.connect();
  try {
    return await redis.keys(`${prefix}*`);
  } finally {
    redis.disconnect();
  }
}

/** A port that nothing listens on: the kernel's pick, released at once. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const refusesConnections = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });

function run(command: string, args: string[], env: Record<string, string> = {}) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    // A command that ignored --help would run on (start runs until a signal): stop it so the test fails.
    const timer = setTimeout(() => child.kill("SIGTERM"), 30_000);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const configEnv = (port: number) => ({
  DATABASE_URL: databaseUrl(name),
  REDIS_URL,
  REDIS_PREFIX: prefix,
  HOST: "127.0.0.1",
  PORT: String(port),
});

afterAll(async () => {
  // Only a command that ignored its arguments leaves anything; drop it so a failure does not pile up.
  for (const database of await ourDatabases()) {
    await withPostgres((client) => client.query(`drop database if exists "${database}" with (force)`));
  }
  const keys = await ourRedisKeys();
  if (keys.length > 0) {
    const redis = new Redis(REDIS_URL);
    await redis.del(...keys);
    redis.disconnect();
  }
});

describe.each([
  "start",
  "migrate",
  "reconcile",
  "dlq",
  "shards",
  "keys",
])("node apps/cli/src/%s-command.ts", (command) => {
  const script = `apps/cli/src/${command}-command.ts`;

  it("--help prints the usage, exits 0 and changes nothing", async () => {
    const port = await closedPort();
    const { status, stdout, stderr } = await run(process.execPath, [script, "--help"], configEnv(port));
    expect(stderr).toBe("");
    expect(stdout).toMatch(new RegExp(`^Usage: \\./floodgate ${command}`));
    expect(stdout).toContain("Environment:");
    expect(status).toBe(0);
    expect(await ourDatabases()).toEqual([]);
    expect(await ourRedisKeys()).toEqual([]);
    expect(await refusesConnections(port)).toBe(true);
  });

  it("-h is --help", async () => {
    const { status, stdout } = await run(process.execPath, [script, "-h"], configEnv(await closedPort()));
    expect(stdout).toMatch(/^Usage: /);
    expect(status).toBe(0);
  });

  it("refuses an unknown flag or a stray word with exit 2, naming it, and changes nothing", async () => {
    const port = await closedPort();
    const flag = await run(process.execPath, [script, "--bogus"], configEnv(port));
    expect(flag.status).toBe(2);
    expect(flag.stderr.split("\n")[0]).toContain("'--bogus'");
    expect(flag.stderr).toContain(`Usage: ./floodgate ${command}`);
    expect(flag.stdout).toBe("");
    const word = await run(process.execPath, [script, "now"], configEnv(port));
    expect(word.status).toBe(2);
    expect(word.stderr.split("\n")[0]).toContain("'now'");
    expect(await ourDatabases()).toEqual([]);
    expect(await ourRedisKeys()).toEqual([]);
    expect(await refusesConnections(port)).toBe(true);
  });

  it("--help works even with a configuration that would not load", async () => {
    const { status, stdout } = await run(process.execPath, [script, "--help"], { PORT: "not a port" });
    expect(stdout).toMatch(/^Usage: /);
    expect(status).toBe(0);
  });
});

describe("node apps/cli/src/shards-command.ts add", () => {
  const script = "apps/cli/src/shards-command.ts";

  it("without a URL, or with a --buckets that is no positive integer, exits 2 and changes nothing", async () => {
    const env = configEnv(await closedPort());
    const noUrl = await run(process.execPath, [script, "add"], env);
    expect(noUrl.status).toBe(2);
    expect(noUrl.stderr.split("\n")[0]).toBe("[shards] add needs the new shard's database URL");
    const badCount = await run(
      process.execPath,
      [script, "add", databaseUrl(`${name}_s9`), "--buckets", "0"],
      env,
    );
    expect(badCount.status).toBe(2);
    expect(badCount.stderr.split("\n")[0]).toBe("[shards] --buckets must be a positive integer, got 0");
    const help = await run(process.execPath, [script, "add", "--help"], env);
    expect(help.stdout).toMatch(/^Usage: \.\/floodgate shards/);
    expect(help.status).toBe(0);
    expect(await ourDatabases()).toEqual([]);
  });
});

describe("the ./floodgate wrapper", () => {
  it("test --help prints its usage and runs nothing; test with a flag exits 2", async () => {
    const help = await run("bash", ["floodgate", "test", "--help"]);
    expect(help.stdout).toMatch(/^Usage: \.\/floodgate test \[--repeat N\] \[--stress\] \[filter\.\.\.\]/);
    expect(help.stderr).toBe(""); // no lint, typecheck or install line
    expect(help.status).toBe(0);
    const flag = await run("bash", ["floodgate", "test", "--bogus"]);
    expect(flag.status).toBe(2);
    expect(flag.stderr.split("\n")[0]).toBe("[floodgate] test: unknown option '--bogus'");
  });

  it("test takes --repeat N (a positive integer) and --stress, and refuses a bad count with 2 before running anything", async () => {
    for (const [args, first] of [
      [["--repeat"], "[floodgate] test: --repeat needs a positive integer (the number of runs)"],
      [["--repeat", "0"], "[floodgate] test: --repeat needs a positive integer, got '0'"],
      [["--repeat", "two", "apps/cli"], "[floodgate] test: --repeat needs a positive integer, got 'two'"],
      [["--repeat=-3"], "[floodgate] test: --repeat needs a positive integer, got '-3'"],
      [["--stress", "--repeat=2", "--bogus"], "[floodgate] test: unknown option '--bogus'"],
    ] as const) {
      const refused = await run("bash", ["floodgate", "test", ...args]);
      expect(refused.status, args.join(" ")).toBe(2);
      expect(refused.stderr.split("\n")[0]).toBe(first);
    }
    // Well-formed, they reach --help like any test arguments: it wins, and nothing runs.
    const help = await run("bash", ["floodgate", "test", "--repeat", "5", "--stress", "apps/cli", "--help"]);
    expect(help.stdout).toMatch(/^Usage: \.\/floodgate test/);
    expect(help.stdout).toContain("--repeat N");
    expect(help.stdout).toContain("--stress");
    expect(help.stderr).toBe("");
    expect(help.status).toBe(0);
  });

  it("dlq --help reaches the dlq command; dlq with a typo exits 2", async () => {
    const help = await run("bash", ["floodgate", "dlq", "--help"]);
    expect(help.stdout).toMatch(/^Usage: \.\/floodgate dlq <list\|show\|replay\|drop>/);
    expect(help.status).toBe(0);
    const typo = await run("bash", ["floodgate", "dlq", "replay"]);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain("[dlq] replay needs an id or --all");
  });

  it("bench payments --help prints its usage and writes no result", async () => {
    const results = readdirSync(`${ROOT}bench/results`);
    const { status, stdout } = await run("bash", ["floodgate", "bench", "payments", "--help"]);
    expect(stdout).toMatch(/^Usage: \.\/floodgate bench payments/);
    expect(status).toBe(0);
    const flag = await run("bash", ["floodgate", "bench", "payments", "--bogus"]);
    expect(flag.status).toBe(2);
    expect(flag.stderr).toContain("unknown option --bogus");
    expect(readdirSync(`${ROOT}bench/results`)).toEqual(results);
  });
});
