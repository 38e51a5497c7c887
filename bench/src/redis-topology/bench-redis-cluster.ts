// payments --redis cluster: the Redis Cluster the second system runs on, started by the bench from
// redis-server on PATH (3 masters on free ports, no replicas and nothing persisted, as the single bench Redis)
// and stopped at the end of the run, or on Ctrl-C. Never the shared Redis. --redis cluster-wait: the same with
// one replica per master, for REDIS_WAIT_REPLICAS=1 to wait on.
import { type RedisCluster, startRedisCluster } from "@floodgate/test-fixtures";
import { registerCleanup } from "../harness/interrupt-cleanup.ts";
import { log } from "../harness/progress-line.ts";

export const BENCH_CLUSTER_MASTERS = 3;

export interface BenchRedisCluster {
  url: string;
  /** What the result records about it. */
  description: { masters: number; replicasPerMaster: number; ports: number[]; persistence: "none" };
  stop(): Promise<void>;
}

export async function startBenchRedisCluster(replicasPerMaster = 0): Promise<BenchRedisCluster> {
  log(
    `starting a private Redis Cluster (${BENCH_CLUSTER_MASTERS} masters, ${replicasPerMaster === 0 ? "no replicas" : `${replicasPerMaster} replica per master`}) from redis-server`,
  );
  const cluster: RedisCluster = await startRedisCluster({
    masters: BENCH_CLUSTER_MASTERS,
    replicasPerMaster,
  });
  const unregister = registerCleanup(() => cluster.stop());
  log(`Redis Cluster ready: masters on ports ${cluster.masters.join(", ")}`);
  return {
    url: cluster.url,
    description: {
      masters: cluster.masters.length,
      replicasPerMaster,
      ports: cluster.masters,
      persistence: "none",
    },
    async stop() {
      unregister();
      await cluster.stop();
    },
  };
}
