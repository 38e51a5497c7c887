// `--redis cluster`'s second system (payments, coupon-drop, hot-product): a private Redis Cluster of 3 masters
// (bench-redis-cluster.ts) and a fresh Floodgate on it, instance "cluster" (databases floodgate_bench_cluster and
// its shards, Redis prefix fgbench:<stamp>-cluster:), started inside the run. `close` takes them down in order,
// the system (its Redis keys deleted) before the cluster; the run's cleanup calls it again, then a no-op.

import { type FreshFloodgate, freshFloodgate } from "../harness/fresh-floodgate.ts";
import type { ScenarioContext } from "../scenario.ts";
import { type BenchRedisCluster, startBenchRedisCluster } from "./bench-redis-cluster.ts";

export interface OpenedOnCluster {
  /** Not started yet: the scenario starts it as it starts its first system. */
  floodgate: FreshFloodgate;
  /** What the result records about the cluster (`redisCluster`). */
  description: BenchRedisCluster["description"];
}

export interface FloodgateOnCluster {
  /** Starts the cluster (no replicas) and sets up the system on it. */
  open(): Promise<OpenedOnCluster>;
  close(): Promise<void>;
}

export function floodgateOnCluster(
  context: ScenarioContext,
  options: { extraEnvironment?: Record<string, string> } = {},
): FloodgateOnCluster {
  let cluster: BenchRedisCluster | null = null;
  let floodgate: FreshFloodgate | null = null;
  return {
    async open() {
      cluster = await startBenchRedisCluster();
      floodgate = freshFloodgate(context, { ...options, instance: "cluster", redisUrl: cluster.url });
      return { floodgate, description: cluster.description };
    },
    async close() {
      await floodgate?.close();
      floodgate = null;
      await cluster?.stop();
      cluster = null;
    },
  };
}
