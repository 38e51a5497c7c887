// What the faults act on: Floodgate started like a shop runs it, but on a private redis-server (AOF with
// `appendfsync always`, in a temp dir, so "0 lost" is claimed under `always`), with Redis, the global database
// and every shard reached through a TCP proxy the suite can cut, freeze or slow. The bench itself reads the
// shards directly. Databases are the suite's own (floodgate_bench_faults*), so it never collides with another
// scenario's fixed names.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { dropDatabases } from "@floodgate/db";
import { type RedisServer, startRedisServer, startTcpProxy, type TcpProxy } from "@floodgate/test-fixtures";
import { benchEnvironment } from "../harness/bench-environment.ts";
import { runSecrets } from "../harness/bench-identity.ts";
import { FloodgateSystem } from "../harness/floodgate-system.ts";
import { registerCleanup } from "../harness/interrupt-cleanup.ts";
import { log } from "../harness/progress-line.ts";
import { LedgerReads } from "./ledger-reads.ts";

/** The persistence of the private Redis the suite's system runs on (what "0 lost" is claimed under). */
export const REDIS_ALWAYS = ["--appendonly", "yes", "--appendfsync", "always", "--save", ""];
export const REDIS_NONE = ["--appendonly", "no", "--save", ""];

export interface FaultRig {
  system: FloodgateSystem;
  redis: RedisServer;
  redisDir: string;
  redisProxy: TcpProxy;
  globalProxy: TcpProxy;
  shardProxies: TcpProxy[];
  /** Direct URLs of the shard databases (for ALTER DATABASE and the ledger reads). */
  shardUrls: string[];
  ledger: LedgerReads;
  /** The start command's pid: the intake and worker processes are its children. */
  supervisorPid: number;
  close(): Promise<void>;
}

/** What a fault phase, the shop's funding and the provider orders use of a rig: the system, its shards, the
 * ledger reads (the test hosts' rig has these too, without the proxies). */
export type SystemRig = Pick<FaultRig, "system" | "shardUrls" | "ledger" | "supervisorPid" | "close">;

const proxyUrl = (url: string, port: number): string => {
  const routed = new URL(url);
  routed.hostname = "127.0.0.1";
  routed.port = String(port);
  return routed.toString();
};

export async function startFaultRig(options: {
  logFile: string;
  intakeProcesses: number;
  workers: number;
}): Promise<FaultRig> {
  const environment = benchEnvironment();
  const databaseUrl = new URL(environment.floodgateDatabaseUrl);
  databaseUrl.pathname = "/floodgate_bench_faults";
  const redisDir = mkdtempSync(path.join(os.tmpdir(), "floodgate-faults-redis-"));
  const redis = await startRedisServer({ persistence: REDIS_ALWAYS, dir: redisDir });
  const redisTarget = new URL(redis.url);
  const redisProxy = await startTcpProxy(redisTarget.hostname, Number(redisTarget.port));
  const pgTarget = new URL(databaseUrl);
  const pgPort = Number(pgTarget.port || 5432);
  const globalProxy = await startTcpProxy(pgTarget.hostname, pgPort);
  const probe = new FloodgateSystem({
    databaseUrl: databaseUrl.toString(),
    redisUrl: redis.url,
    redisPrefix: "fgfaults:",
    logFile: options.logFile,
    secrets: runSecrets(),
    auth: "on",
  });
  const shardUrls = probe.shardUrls;
  const shardProxies = await Promise.all(shardUrls.map(() => startTcpProxy(pgTarget.hostname, pgPort)));
  const system = new FloodgateSystem({
    ...probe.config,
    extraEnvironment: {
      INTAKE_PROCESSES: String(options.intakeProcesses),
      // One address sends the whole load (the bench's); users keep their own limits.
      RATE_LIMITS: "*.ip=off",
    },
    routedUrls: {
      redisUrl: proxyUrl(redis.url, redisProxy.port),
      databaseUrl: proxyUrl(databaseUrl.toString(), globalProxy.port),
      shardUrls: shardUrls.map((url, i) => proxyUrl(url, shardProxies[i]!.port)),
    },
  });
  await probe.shards.close();
  const ledger = new LedgerReads(shardUrls);
  const allDatabases = [databaseUrl.toString(), ...shardUrls];
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await system.close();
    await ledger.close();
    await Promise.all([redisProxy, globalProxy, ...shardProxies].map((proxy) => proxy.close()));
    await redis.stop();
    rmSync(redisDir, { recursive: true, force: true });
    await dropDatabases(allDatabases);
  };
  const unregister = registerCleanup(close);
  log(`dropping leftover fault databases, starting Floodgate (log: ${options.logFile})`);
  await dropDatabases(allDatabases);
  const service = await system.start(options.workers);
  await system.authenticate();
  return {
    system,
    redis,
    redisDir,
    redisProxy,
    globalProxy,
    shardProxies,
    shardUrls,
    ledger,
    supervisorPid: service.pid,
    close: async () => {
      unregister();
      await close();
    },
  };
}
