// A Redis Cluster on test hosts: 3 masters and a replica each, every node a redis-server on a host of its own
// (AOF `appendfsync always`, as the single Redis), formed with `redis-cli --cluster create` over the bridge.
// cluster-node-timeout is short (CLUSTER_NODE_TIMEOUT_MS) so that a master cut from the others is failed over
// well inside a 20 s partition. Which node is master of what is read from the cluster when asked (a failover
// moves it), never assumed from the start order.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { waitUntilClusterFormed } from "@floodgate/test-fixtures";
import { Redis } from "ioredis";
import { type NamespacedRedis, startNamespacedRedis } from "./namespaced-redis.ts";
import type { TestHost, TestNetwork } from "./test-network.ts";

export const CLUSTER_MASTERS = 3;
export const CLUSTER_NODE_TIMEOUT_MS = 3000;

export interface ClusterNode {
  host: TestHost;
  /** host:port as the cluster names it. */
  address: string;
}

export interface NamespacedRedisCluster {
  /** REDIS_URL's cluster form over every node. */
  url: string;
  nodes: ClusterNode[];
  /** The node that is master of `slot` now, and its replicas, as that master's own CLUSTER NODES says. */
  masterOf(slot: number): Promise<{ master: ClusterNode; replicas: ClusterNode[] }>;
  /** The node's ROLE reply's first word ("master" or "slave"), null when it does not answer. */
  role(node: ClusterNode): Promise<string | null>;
  /** Whether the node says cluster_state:ok (a master that lost the majority says fail, and refuses every
   * keyed command with CLUSTERDOWN); false when it does not answer. */
  stateOk(node: ClusterNode): Promise<boolean>;
  /** Whether every node answers and says cluster_state:ok, each replica's link up. */
  healthy(): Promise<boolean>;
  stop(): Promise<void>;
}

const run = promisify(execFile);

export async function startNamespacedRedisCluster(network: TestNetwork): Promise<NamespacedRedisCluster> {
  const servers: NamespacedRedis[] = [];
  const stop = async () => {
    await Promise.all(servers.map((server) => server.stop()));
  };
  try {
    const count = CLUSTER_MASTERS * 2;
    for (let i = 0; i < count; i++) {
      const host = network.addHost(`redis-${i}`);
      servers.push(
        await startNamespacedRedis(host, [
          "--cluster-enabled",
          "yes",
          "--cluster-config-file",
          "nodes.conf",
          "--cluster-node-timeout",
          String(CLUSTER_NODE_TIMEOUT_MS),
        ]),
      );
    }
    const nodes = servers.map((server) => ({
      host: server.host,
      address: `${server.host.address}:${new URL(server.url).port}`,
    }));
    await run(
      "redis-cli",
      [
        "--cluster",
        "create",
        ...nodes.map((node) => node.address),
        "--cluster-replicas",
        "1",
        "--cluster-yes",
      ],
      { timeout: 60_000 },
    ).catch((error: Error & { stdout?: string; stderr?: string }) => {
      throw new Error(
        `redis-cli --cluster create failed: ${error.message}\n${error.stdout ?? ""}${error.stderr ?? ""}`,
      );
    });
    const hostPort = (node: ClusterNode) => {
      const [host, port] = node.address.split(":");
      return { host: host!, port: Number(port) };
    };
    await waitUntilClusterFormed(nodes.map(hostPort), CLUSTER_MASTERS, 1, Date.now() + 60_000);
    const ask = async <T>(node: ClusterNode, question: (client: Redis) => Promise<T>): Promise<T | null> => {
      const { host, port } = hostPort(node);
      const client = new Redis(port, host, {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        connectTimeout: 1000,
        commandTimeout: 1000,
        retryStrategy: () => null,
      });
      client.on("error", () => {});
      try {
        await client.connect();
        return await question(client);
      } catch {
        return null;
      } finally {
        client.disconnect();
      }
    };
    const byAddress = (address: string) => nodes.find((node) => node.address === address.split("@")[0]);
    return {
      url: `redis+cluster://${nodes.map((node) => node.address).join(",")}`,
      nodes,
      async masterOf(slot) {
        for (const asked of nodes) {
          const view = await ask(asked, (client) => client.cluster("NODES") as Promise<string>);
          if (view === null) continue;
          const lines = view
            .trim()
            .split("\n")
            .map((line) => line.split(" "));
          const owner = lines.find(
            ([, , flags, , , , , , ...slots]) =>
              /(^|,)master(,|$)/.test(flags ?? "") && !/fail/.test(flags ?? "") && servesSlot(slots, slot),
          );
          const master = owner && byAddress(owner[1]!);
          if (!owner || !master) continue;
          const replicas = lines
            .filter(([, , flags, masterId]) => /slave/.test(flags ?? "") && masterId === owner[0])
            .map((line) => byAddress(line[1]!))
            .filter((node): node is ClusterNode => node !== undefined);
          return { master, replicas };
        }
        throw new Error(`no node of the cluster names a master of slot ${slot}`);
      },
      async stateOk(node) {
        const info = await ask(node, (client) => client.cluster("INFO") as Promise<string>);
        return info !== null && /cluster_state:ok/.test(info);
      },
      role: (node) => ask(node, async (client) => ((await client.call("ROLE")) as [string])[0]),
      async healthy() {
        const states = await Promise.all(
          nodes.map((node) =>
            ask(node, async (client) => {
              const info = (await client.cluster("INFO")) as string;
              const replication = await client.info("replication");
              return (
                /cluster_state:ok/.test(info) &&
                (!/role:slave/.test(replication) || /master_link_status:up/.test(replication))
              );
            }),
          ),
        );
        return states.every((state) => state === true);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Whether CLUSTER NODES' slot fields ("0-5460", "5461", "[...migrating]") include `slot`. */
function servesSlot(fields: readonly string[], slot: number): boolean {
  return fields.some((field) => {
    if (field.startsWith("[")) return false;
    const [from, to] = field.split("-").map(Number);
    return from !== undefined && slot >= from && slot <= (to ?? from);
  });
}
