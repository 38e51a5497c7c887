// `--redis single|cluster` of coupon-drop and hot-product (payments has its own, with cluster-wait): whether
// the run measures the bench Redis alone, or then again a Floodgate on a private Redis Cluster (cluster-rerun.ts).
import type { OptionSpec, OptionValues } from "../bench-options.ts";

export const REDIS_TOPOLOGIES = ["single", "cluster"] as const;
export type RedisTopology = (typeof REDIS_TOPOLOGIES)[number];

/** `what`: the measured part, as the help names it ("the drop"); `step`: what takes two steps on a cluster. */
export const redisTopologyOption = (what: string, step: string): OptionSpec => ({
  name: "redis",
  kind: "choice",
  choices: REDIS_TOPOLOGIES,
  help: `single: the bench Redis (BENCH_REDIS_URL); cluster: ${what} on the bench Redis, then again on a fresh Floodgate on a private 3-master Redis Cluster started from redis-server on PATH (where ${step} takes two steps: a reservation, then a commit), invariants checked on both, both reported with the ratio of their rates (default single)`,
});

export const toRedisTopology = (values: OptionValues): RedisTopology =>
  (values.redis as RedisTopology | null) ?? "single";
