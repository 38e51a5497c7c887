// coupon-drop and hot-product --redis cluster: the run's measured part again, on a fresh Floodgate on a private
// Redis Cluster (floodgate-on-cluster.ts), once it ran on the bench Redis. One after the other, not side by
// side: the first system stops before the cluster starts, so each has the machine to itself. The second system
// is recorded where payments --redis cluster records it (settings.clusterSystemEnvironment, redisCluster), and
// taken down (its Redis keys deleted, then the cluster stopped) before the run's summary.

import type { FreshFloodgate, RecordedSystem } from "../harness/fresh-floodgate.ts";
import { log } from "../harness/progress-line.ts";
import type { BenchRedisCluster } from "./bench-redis-cluster.ts";
import type { FloodgateOnCluster } from "./floodgate-on-cluster.ts";

export interface ClusterRecord {
  settings: Record<string, unknown>;
  redisCluster: BenchRedisCluster["description"] | null;
}

export async function runAgainOnCluster(
  first: FreshFloodgate,
  onCluster: FloodgateOnCluster,
  run: { workers: number; result: ClusterRecord; measure: (floodgate: FreshFloodgate) => Promise<void> },
): Promise<void> {
  await first.system.stop();
  log("--redis cluster: the same run again, on a fresh Floodgate on a private Redis Cluster");
  const opened = await onCluster.open();
  run.result.redisCluster = opened.description;
  const recorded: RecordedSystem = { settings: {}, services: null };
  await opened.floodgate.start(run.workers, recorded);
  run.result.settings.clusterSystemEnvironment = recorded.settings.systemEnvironment;
  await run.measure(opened.floodgate);
  await onCluster.close();
}

/** Closes the first system, then the cluster's: its redis-server processes stop even if the first close fails. */
export async function closeBoth(first: FreshFloodgate, onCluster: FloodgateOnCluster): Promise<void> {
  try {
    await first.close();
  } finally {
    await onCluster.close();
  }
}
