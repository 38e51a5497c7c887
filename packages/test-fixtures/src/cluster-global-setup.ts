// vitest's global setup of the "cluster" project (vitest.config.ts): one 3+3 Redis Cluster for every file of
// the project, started before the first of them and stopped after the last. vitest runs it only when the
// project has files to run (a filtered run that selects none of cluster-suites.ts starts nothing).
import type { TestProject } from "vitest/node";
import { startRedisCluster } from "./redis-cluster.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The redis+cluster:// URL of the run's shared cluster (cluster-test-setup.ts reads it). */
    floodgateRedisClusterUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Six redis-servers on a machine whose two cores the lead's runs share: more than the fixture's default 30 s.
  // No file of the project kills a node of this cluster (the failover tests start their own), so its node
  // timeout is long: a node starved of cpu for 2 s by the whole suite must not be failed over mid-run.
  const cluster = await startRedisCluster({
    masters: 3,
    replicasPerMaster: 1,
    startTimeoutMs: 60_000,
    nodeTimeoutMs: 15_000,
  });
  project.provide("floodgateRedisClusterUrl", cluster.url);
  return () => cluster.stop();
}
