// A private Redis Cluster for a test: real redis-server processes on free ports, built by
// `redis-cli --cluster create`, returned only once every node sees the same healthy cluster (all slots
// served, every node known with its role, every replica in sync), so a test never starts on a half-formed
// one. Never the shared Redis on 6379. Nothing is persisted; stop() kills the nodes and removes their dir.
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { type ClusterNodeProcess, logTail, startClusterNode } from "./redis-cluster-node.ts";

export interface RedisClusterOptions {
  masters?: number;
  replicasPerMaster?: number;
  /** cluster-node-timeout: short, so a failover test (killNode) sees a replica promoted quickly. */
  nodeTimeoutMs?: number;
  /** How long startup may take before it fails with the nodes' logs. */
  startTimeoutMs?: number;
}

export interface RedisCluster {
  /** `redis+cluster://127.0.0.1:p1,127.0.0.1:p2,...` over every node (REDIS_URL's cluster form). */
  url: string;
  /** Ports of the masters and of the replicas, as the cluster stood when it was returned. */
  masters: number[];
  replicas: number[];
  /** SIGKILL one node and wait for its exit (a crash, for failover tests). */
  killNode(port: number): Promise<void>;
  /** Kills every node and removes the cluster's temp dir. */
  stop(): Promise<void>;
}

const run = promisify(execFile);

export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const masters = options.masters ?? 3;
  const replicasPerMaster = options.replicasPerMaster ?? 1;
  if (masters < 3) throw new Error("a Redis Cluster needs at least 3 masters");
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  const dir = await mkdtemp(path.join(tmpdir(), "floodgate-redis-cluster-"));
  const nodes: ClusterNodeProcess[] = [];
  // A run that dies before stop() must not leave its nodes behind.
  const killOnExit = () => {
    for (const node of nodes) node.child.kill("SIGKILL");
  };
  process.on("exit", killOnExit);
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.kill()));
    process.off("exit", killOnExit);
    await rm(dir, { recursive: true, force: true });
  };

  try {
    const count = masters * (1 + replicasPerMaster);
    const nodeTimeoutMs = options.nodeTimeoutMs ?? 2000;
    // One at a time: each start already waits for PING, and on a busy 2-core machine parallel starts only
    // make every one of them slower.
    for (let i = 0; i < count; i++) nodes.push(await startClusterNode(dir, nodeTimeoutMs, deadline));
    const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
    await run(
      "redis-cli",
      ["--cluster", "create", ...addresses, "--cluster-replicas", String(replicasPerMaster), "--cluster-yes"],
      { timeout: Math.max(1000, deadline - Date.now()) },
    ).catch((error: Error & { stdout?: string; stderr?: string }) => {
      throw new Error(
        `redis-cli --cluster create failed: ${error.message}\n${error.stdout ?? ""}${error.stderr ?? ""}`,
      );
    });
    const roles = await waitUntilClusterFormed(
      nodes.map((node) => ({ host: "127.0.0.1", port: node.port })),
      masters,
      replicasPerMaster,
      deadline,
    );
    return {
      url: `redis+cluster://${addresses.join(",")}`,
      masters: roles.masters.map((index) => nodes[index]!.port),
      replicas: roles.replicas.map((index) => nodes[index]!.port),
      killNode: async (port) => {
        const node = nodes.find((candidate) => candidate.port === port);
        if (!node) throw new Error(`no node of this cluster listens on ${port}`);
        await node.kill();
      },
      stop,
    };
  } catch (error) {
    const logs = await Promise.all(nodes.map((node) => logTail(node)));
    await stop();
    throw new Error(`${(error as Error).message}\n${logs.join("\n")}`);
  }
}

/** Which of the nodes given are masters and which replicas, by their index in that list. */
export interface ClusterRoles {
  masters: number[];
  replicas: number[];
}

/** Polls every node until all agree the cluster is whole (all slots served, every node known with its role,
 * every replica in sync); a condition, never a fixed sleep. Throws after `deadline` naming what is missing. */
export async function waitUntilClusterFormed(
  nodes: readonly { host: string; port: number }[],
  masters: number,
  replicasPerMaster: number,
  deadline: number,
): Promise<ClusterRoles> {
  const clients = nodes.map(
    (node) => new Redis(node.port, node.host, { maxRetriesPerRequest: 1, retryStrategy: () => 100 }),
  );
  for (const client of clients) client.on("error", () => {});
  let lastProblem = "not checked yet";
  try {
    for (;;) {
      const problems = await Promise.all(
        clients.map((client, i) =>
          nodeProblem(client, nodes.length, masters).then(
            (p) => p && `${nodes[i]!.host}:${nodes[i]!.port}: ${p}`,
          ),
        ),
      );
      lastProblem = problems.filter(Boolean).join("; ");
      if (lastProblem === "") {
        const roles = await Promise.all(clients.map((client) => client.call("ROLE") as Promise<[string]>));
        const result: ClusterRoles = { masters: [], replicas: [] };
        roles.forEach(([role], i) => {
          (role === "master" ? result.masters : result.replicas).push(i);
        });
        if (result.masters.length === masters && result.replicas.length === masters * replicasPerMaster) {
          return result;
        }
        lastProblem = `roles: ${result.masters.length} masters, ${result.replicas.length} replicas`;
      }
      if (Date.now() > deadline)
        throw new Error(`the Redis Cluster did not converge in time: ${lastProblem}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    for (const client of clients) client.disconnect();
  }
}

/** What this node still lacks for a whole cluster, or "" when it has it all. */
async function nodeProblem(client: Redis, total: number, masters: number): Promise<string> {
  try {
    const info = (await client.cluster("INFO")) as string;
    if (!/cluster_state:ok/.test(info)) return "cluster_state not ok";
    if (!/cluster_slots_ok:16384\b/.test(info)) return "not every slot served";
    const view = ((await client.cluster("NODES")) as string).trim().split("\n");
    if (view.length !== total) return `knows ${view.length} of ${total} nodes`;
    if (view.some((line) => /handshake|fail|noaddr/.test(line.split(" ")[2] ?? "")))
      return "a node in handshake or failed";
    const seenMasters = view.filter((line) => /(^|,)master(,|$)/.test(line.split(" ")[2] ?? "")).length;
    if (seenMasters !== masters) return `sees ${seenMasters} masters`;
    const replication = await client.info("replication");
    if (/role:slave/.test(replication)) {
      if (!/master_link_status:up/.test(replication)) return "replica link not up";
      if (!/master_sync_in_progress:0/.test(replication)) return "replica still syncing";
    }
    return "";
  } catch (error) {
    return (error as Error).message;
  }
}
