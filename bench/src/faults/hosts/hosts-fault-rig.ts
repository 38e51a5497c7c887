// What `./floodgate bench faults --hosts` acts on, every part on a test host of its own (each a network namespace
// on one bridge): Redis (one node, or with --redis cluster six: 3 masters and a replica each), the global database
// and shards 0 and 3 on a Postgres host, shards 1 and 2 on a Postgres host of their own (Postgres running as its
// own user), the intakes (the start command, WORKERS=0) on one host and the workers on another, all reaching
// each other over the bridge, directly (no proxy): a partition is the kernel dropping packets both ways. Shard 2
// is the exception: reached through a TCP proxy in the root namespace (at the bridge's address), which can hold
// its replies while its host's link goes down (a worker cut between COMMIT and its answer). Shard 4, on the
// shards' host too, is a spare: the map is recorded over shards 0-3 before the system starts with all five
// listed (as an operator lists a shard before `shards add`), so it owns no bucket until the shards-add fault
// moves some to it. The load generator stays in the root namespace and reaches the intakes over the bridge.
import { defaultShardUrls } from "@floodgate/config";
import { ensureDatabases, migrateAll } from "@floodgate/db";
import { startTcpProxy, type TcpProxy } from "@floodgate/test-fixtures";
import { runSecrets } from "../../harness/bench-identity.ts";
import { FloodgateSystem } from "../../harness/floodgate-system.ts";
import { registerCleanup } from "../../harness/interrupt-cleanup.ts";
import { log } from "../../harness/progress-line.ts";
import type { SystemRig } from "../fault-rig.ts";
import { LedgerReads } from "../ledger-reads.ts";
import { requireHosts } from "./host-preconditions.ts";
import { type NamespacedPostgres, postgresBin, startNamespacedPostgres } from "./namespaced-postgres.ts";
import { type NamespacedRedis, startNamespacedRedis } from "./namespaced-redis.ts";
import {
  CLUSTER_MASTERS,
  type NamespacedRedisCluster,
  startNamespacedRedisCluster,
} from "./namespaced-redis-cluster.ts";
import { type NamespacedWorkers, startNamespacedWorkers } from "./namespaced-workers.ts";
import { type TestHost, TestNetwork } from "./test-network.ts";

/** The shards whose server sits on a host of its own (of 4): the shard faults partition or slow that host. */
export const HOSTED_SHARD = 1;
/** On the same host, reached through the proxy. */
export const PROXIED_SHARD = 2;
/** On the same host, listed in SHARD_URLS but owning no bucket until `shards add` moves buckets to it. */
export const SPARE_SHARD = 4;

export interface HostsFaultRig extends SystemRig {
  network: TestNetwork;
  /** One Redis's host; null on a cluster. */
  redisHost: TestHost | null;
  /** With --redis cluster: its six nodes, each on a host of its own; else null. */
  redisCluster: NamespacedRedisCluster | null;
  /** REDIS_WAIT_REPLICAS the system runs with. */
  waitReplicas: number;
  /** The global database's and shards 0, 2, 3's host. */
  postgresHost: TestHost;
  /** Shards HOSTED_SHARD's, PROXIED_SHARD's and SPARE_SHARD's host. */
  shardHost: TestHost;
  /** In front of PROXIED_SHARD, in the root namespace. */
  shardProxy: TcpProxy;
  /** Worker processes the system runs with. */
  workers: number;
  /** The intakes' host (the start command with WORKERS=0) and the workers' host. */
  intakesHost: TestHost;
  workersHost: TestHost;
  /** The worker processes' pids, on workersHost. */
  workerPids(): number[];
  /** Where each server runs, for the result. */
  placement: Record<string, string>;
}

/** Checks the machine first (root, iproute2, namespaces, bridges, veth, Postgres binaries and user): throws
 * HostsUnavailableError naming what is missing before anything is made. */
export function requireTestHosts(): void {
  requireHosts();
  postgresBin();
}

export async function startHostsFaultRig(options: {
  logFile: string;
  intakeProcesses: number;
  workers: number;
  redis: "single" | "cluster";
  waitReplicas: number;
}): Promise<HostsFaultRig> {
  requireTestHosts();
  const network = TestNetwork.create();
  let redis: NamespacedRedis | null = null;
  let redisCluster: NamespacedRedisCluster | null = null;
  const postgres: NamespacedPostgres[] = [];
  let system: FloodgateSystem | null = null;
  let ledger: LedgerReads | null = null;
  let shardProxy: TcpProxy | null = null;
  let workers: NamespacedWorkers | null = null;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await workers?.stop();
    await system?.close();
    await ledger?.close();
    await shardProxy?.close();
    await redis?.stop();
    await redisCluster?.stop();
    for (const server of postgres) server.stop();
    network.close();
  };
  const unregister = registerCleanup(close);
  try {
    const redisHost = options.redis === "single" ? network.addHost("redis") : null;
    const postgresHost = network.addHost("pg");
    const shardHost = network.addHost("pg-shards");
    const intakesHost = network.addHost("intakes");
    const workersHost = network.addHost("workers");
    if (redisHost !== null) redis = await startNamespacedRedis(redisHost);
    else redisCluster = await startNamespacedRedisCluster(network);
    const redisUrl = redis?.url ?? redisCluster!.url;
    log(
      `test hosts: redis ${redisHost?.address ?? `cluster ${redisCluster!.nodes.map((node) => node.address).join(", ")}`}, postgres ${postgresHost.address}, shards ${HOSTED_SHARD}, ${PROXIED_SHARD} and the spare ${SPARE_SHARD} ${shardHost.address}, intakes ${intakesHost.address}, workers ${workersHost.address}`,
    );
    postgres.push(startNamespacedPostgres(postgresHost), startNamespacedPostgres(shardHost));
    const databaseUrl = new URL(postgres[0]!.url);
    databaseUrl.pathname = "/floodgate_bench_faults";
    const shardUrls = defaultShardUrls(databaseUrl.toString(), SPARE_SHARD + 1).map((url, index) => {
      if (index !== HOSTED_SHARD && index !== PROXIED_SHARD && index !== SPARE_SHARD) return url;
      const moved = new URL(url);
      moved.hostname = shardHost.address;
      return moved.toString();
    });
    // On the bridge's root-namespace address: the workers' host reaches the root namespace there.
    const proxy = await startTcpProxy(
      shardHost.address,
      Number(new URL(shardUrls[PROXIED_SHARD]!).port),
      network.gateway,
    );
    shardProxy = proxy;
    const routedShardUrls = shardUrls.map((url, index) => {
      if (index !== PROXIED_SHARD) return url;
      const routed = new URL(url);
      routed.hostname = network.gateway;
      routed.port = String(proxy.port);
      return routed.toString();
    });
    system = new FloodgateSystem({
      databaseUrl: databaseUrl.toString(),
      shardUrls,
      redisUrl,
      redisPrefix: "fgfaults:",
      logFile: options.logFile,
      secrets: runSecrets(),
      auth: "on",
      extraEnvironment: {
        INTAKE_PROCESSES: String(options.intakeProcesses),
        RATE_LIMITS: "*.ip=off",
        REDIS_WAIT_REPLICAS: String(options.waitReplicas),
        // Off a loopback HOST the intakes would wait out a load balancer's drain window at every stop.
        SHUTDOWN_DRAIN_SECONDS: "0",
      },
      routedUrls: { shardUrls: routedShardUrls },
      placement: {
        launcher: (file, args) => intakesHost.command(file, args),
        address: intakesHost.address,
      },
      workersApart: true,
    });
    ledger = new LedgerReads(shardUrls);
    // The map is recorded over the shards before the spare (a first migrate records SHARD_URLS' contiguous
    // ranges); the start then migrates the spare too, which owns nothing.
    const owning = shardUrls.slice(0, SPARE_SHARD);
    await ensureDatabases([databaseUrl.toString(), ...owning]);
    await migrateAll(databaseUrl.toString(), owning);
    log(`starting Floodgate against the test hosts (log: ${options.logFile})`);
    const service = await system.start(0);
    workers = startNamespacedWorkers({
      host: workersHost,
      count: options.workers,
      environment: system.environment(options.workers),
      logFile: options.logFile,
    });
    await system.authenticate();
    return {
      system,
      shardUrls,
      ledger,
      supervisorPid: service.pid,
      workers: options.workers,
      intakesHost,
      workersHost,
      workerPids: () => workers?.pids() ?? [],
      network,
      redisHost,
      redisCluster,
      waitReplicas: options.waitReplicas,
      postgresHost,
      shardHost,
      shardProxy: proxy,
      placement: {
        redis:
          redis !== null
            ? `${redis.url} (host ${redisHost!.namespace})`
            : `a Redis Cluster of ${CLUSTER_MASTERS} masters and a replica each: ${redisCluster!.nodes.map((node) => `${node.address} (host ${node.host.namespace})`).join(", ")}; REDIS_WAIT_REPLICAS=${options.waitReplicas}`,
        globalDatabase: `${databaseUrl.host} (host ${postgresHost.namespace})`,
        shards: routedShardUrls.map((url) => new URL(url).host).join(", "),
        spareShard: `shard ${SPARE_SHARD} on ${new URL(shardUrls[SPARE_SHARD]!).host}: listed, owning no bucket until hosts-shards-add-partition moves some to it`,
        proxiedShard: `shard ${PROXIED_SHARD}: a TCP proxy on ${new URL(routedShardUrls[PROXIED_SHARD]!).host} in front of ${new URL(shardUrls[PROXIED_SHARD]!).host}`,
        intakes: `${options.intakeProcesses} processes (the start command, WORKERS=0) on ${intakesHost.address} (host ${intakesHost.namespace}); the load generator reaches them from the root namespace over the bridge`,
        workers: `${options.workers} processes on ${workersHost.address} (host ${workersHost.namespace})`,
      },
      close: async () => {
        unregister();
        await close();
      },
    };
  } catch (error) {
    unregister();
    await close();
    throw error;
  }
}
