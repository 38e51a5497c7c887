// Uses the Redis that REDIS_URL names; on a machine with none running, starts a local redis-server with the
// durability settings production uses (AOF, fsync every second, no eviction), keeping its data in dataDir.
// A Redis Cluster is only ever used, never started.
import { spawn } from "node:child_process";
import { mkdir, open, readFile } from "node:fs/promises";
import path from "node:path";
import { parseRedisUrl } from "@floodgate/config";
import { createRedis, waitForRedis } from "@floodgate/redis-connections";
import { Redis } from "ioredis";

export interface FoundRedis {
  redisUrl: string;
  started: boolean;
  stop(): Promise<void>;
}

export async function findOrStartRedis(opts: {
  redisUrl: string;
  dataDir: string;
  log: (msg: string) => void;
}): Promise<FoundRedis> {
  const parsed = parseRedisUrl(opts.redisUrl);
  if (parsed.kind === "cluster") {
    const where = parsed.nodes.map((node) => `${node.host}:${node.port}`).join(",");
    await clusterReady(opts.redisUrl, where);
    opts.log(`redis: using the Redis Cluster at ${where} (REDIS_URL)`);
    return { redisUrl: opts.redisUrl, started: false, stop: async () => {} };
  }
  const target = new URL(opts.redisUrl);
  const port = target.port ? Number(target.port) : 6379;
  const where = `${target.hostname}:${port}`;
  const answer = await ping(opts.redisUrl, 1500);
  if (answer.state === "up") {
    opts.log(`redis: using the server at ${where} (REDIS_URL)`);
    return { redisUrl: opts.redisUrl, started: false, stop: async () => {} };
  }
  if (answer.state === "refused") {
    // A server is there (wrong password, TLS mismatch): starting another one would hide the misconfiguration.
    throw new Error(`REDIS_URL: the Redis at ${where} refused PING: ${answer.reason}`);
  }
  if (!["localhost", "127.0.0.1", "[::1]"].includes(target.hostname) || target.protocol !== "redis:") {
    throw new Error(
      `REDIS_URL: no Redis answers at ${where} (${answer.reason}); one is only started for redis://localhost`,
    );
  }
  const server = await startRedisServer(opts.dataDir, port);
  opts.log(
    `redis: nothing answers at ${where} (REDIS_URL); started redis-server on it with AOF in ${opts.dataDir}`,
  );
  // The spawned server has no password: drop any from the URL so clients do not send AUTH to it.
  const local = new URL(opts.redisUrl);
  local.hostname = "127.0.0.1";
  local.username = "";
  local.password = "";
  return { redisUrl: local.toString(), started: true, stop: server.stop };
}

/** Its client connects and the cluster reports itself whole (CLUSTER INFO: cluster_state:ok), or an error. */
async function clusterReady(url: string, where: string): Promise<void> {
  const cluster = createRedis(url, { name: "floodgate-start" });
  let lastError = "";
  cluster.on("error", (error: Error) => {
    lastError = error.message;
  });
  try {
    await waitForRedis(cluster, 5000);
  } catch {
    throw new Error(
      `REDIS_URL: the Redis Cluster at ${where} is not ready${lastError ? ` (${lastError})` : ""}; floodgate starts a local Redis only for redis://localhost`,
    );
  } finally {
    cluster.disconnect();
  }
}

type Ping = { state: "up" } | { state: "down" | "refused"; reason: string };

async function ping(url: string, timeoutMs: number): Promise<Ping> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  redis.on("error", () => {}); // reported through the rejected promises below
  try {
    await redis.connect();
  } catch (error) {
    return { state: "down", reason: (error as Error).message };
  }
  try {
    await redis.ping();
    return { state: "up" };
  } catch (error) {
    // Connected but the command failed: NOAUTH, WRONGPASS, or something that is not Redis.
    return { state: "refused", reason: (error as Error).message };
  } finally {
    redis.disconnect();
  }
}

async function startRedisServer(dataDir: string, port: number): Promise<{ stop(): Promise<void> }> {
  await mkdir(dataDir, { recursive: true });
  const logPath = path.join(dataDir, "redis-server.log");
  const logFile = await open(logPath, "a");
  // Same durability as infra/redis/redis.conf: an accepted request survives a crash of Redis (AOF, at most
  // ~1 s lost on power loss), and a full Redis refuses writes instead of evicting queued payments.
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--dir", dataDir, "--appendonly", "yes"];
  args.push("--appendfsync", "everysec", "--maxmemory-policy", "noeviction", "--save", "");
  // Own process group: a terminal Ctrl-C reaches only Node, which stops this server after the drain.
  const child = spawn("redis-server", args, { detached: true, stdio: ["ignore", logFile.fd, logFile.fd] });
  let spawnError: NodeJS.ErrnoException | undefined; // listened to before any await: a failed spawn emits it on the next tick
  child.on("error", (error) => {
    spawnError = error;
  });
  const exited = new Promise((resolve) => {
    child.once("exit", resolve);
    child.once("error", resolve);
  });
  const gone = () => spawnError !== undefined || child.exitCode !== null || child.signalCode !== null;
  const killOnExit = () => child.kill("SIGTERM"); // a process that exits without stop() must not leave it behind
  process.on("exit", killOnExit);
  child.unref();
  await logFile.close(); // the child holds its own copy of the descriptor
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if ((await ping(url, 1000)).state === "up") break;
    if (gone() || Date.now() > deadline) {
      process.off("exit", killOnExit);
      child.kill("SIGTERM");
      if (spawnError?.code === "ENOENT") {
        throw new Error(
          `REDIS_URL: no Redis answers at port ${port} and redis-server is not on PATH; install one ` +
            "(apt-get install redis-server, brew install redis) or set REDIS_URL to a running Redis",
        );
      }
      const tail = (await readFile(logPath, "utf8").catch(() => "")).trim().split("\n").slice(-5).join("\n");
      throw new Error(
        `redis-server did not start (${spawnError?.message ?? "see its log"}); ${logPath} ends with:\n${tail}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const stop = async () => {
    process.off("exit", killOnExit);
    if (gone()) return;
    child.ref();
    child.kill("SIGTERM"); // like SHUTDOWN: fsyncs the AOF, then exits
    await exited;
  };
  return { stop };
}
