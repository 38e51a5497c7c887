// payments --redis cluster: the same measured phases on one Redis and on a Redis Cluster of 3 masters, two
// systems side by side, as ratios. On one 2-core machine the cluster cannot be faster (three Redis processes
// share the cores the one used, and a request's commands may go to two nodes); what the figures show is what
// the cluster costs per request here, and that every phase runs on it. Capacity across machines is worked out
// from per-request costs in docs/capacity.md.

import { formatCount } from "../harness/progress-line.ts";
import type { AuthPhases } from "../payments/auth-cost.ts";
import { ratio3, type StageSide, zipStagePairs } from "../payments/stage-pairs.ts";

export interface TopologyStagePair {
  offeredRate: number;
  first: "single" | "cluster";
  single: StageSide;
  cluster: StageSide;
}

export interface RedisTopologyCost {
  singleMaxRate: number | null;
  clusterMaxRate: number | null;
  /** clusterMaxRate / singleMaxRate (3 decimals); null without --max or when a search found no passing stage. */
  maxRateRatio: number | null;
  /** The fixed-rate run: accepted rates' ratio (cluster / single) and both intake p99s. */
  acceptedRateRatio: number | null;
  intakeP99Ms: { single: number | null; cluster: number | null };
  stagePairs: TopologyStagePair[];
}

export function compareRedisTopologies(single: AuthPhases, cluster: AuthPhases): RedisTopologyCost {
  return {
    singleMaxRate: single.max?.maxAcceptedRate ?? null,
    clusterMaxRate: cluster.max?.maxAcceptedRate ?? null,
    maxRateRatio: ratio3(cluster.max?.maxAcceptedRate, single.max?.maxAcceptedRate),
    acceptedRateRatio: ratio3(cluster.rate?.acceptedRate, single.rate?.acceptedRate),
    intakeP99Ms: {
      single: single.rate?.intakeLatencyMs?.p99 ?? null,
      cluster: cluster.rate?.intakeLatencyMs?.p99 ?? null,
    },
    stagePairs: zipStagePairs(single.max?.stages ?? [], cluster.max?.stages ?? []).map((pair) => ({
      offeredRate: pair.offeredRate,
      first: pair.ranFirst === 0 ? "single" : "cluster",
      single: pair.sides[0],
      cluster: pair.sides[1],
    })),
  };
}

const sideText = (name: string, s: StageSide) =>
  `${name} accepted ${formatCount(s.acceptedRate)}/s p99 ${s.p99Ms ?? "n/a"} ms ${s.passed ? "pass" : "fail"}`;

export function redisTopologyLines(cost: RedisTopologyCost): string[] {
  const lines: string[] = [];
  const rate = (value: number | null) => (value === null ? "none passed" : `${formatCount(value)}/s`);
  if (cost.singleMaxRate !== null || cost.clusterMaxRate !== null || cost.stagePairs.length > 0) {
    const ratio =
      cost.maxRateRatio === null
        ? "no ratio (a search found no passing stage)"
        : `cluster = ${(cost.maxRateRatio * 100).toFixed(1)} % of one Redis`;
    lines.push(
      `redis topology, --max (paired stages): one Redis ${rate(cost.singleMaxRate)}, Redis Cluster (3 masters) ${rate(cost.clusterMaxRate)}; ${ratio}`,
      ...cost.stagePairs.map(
        (pair, i) =>
          `  pair ${i + 1} @ ${formatCount(pair.offeredRate)}/s (${pair.first} first): ${sideText("one Redis", pair.single)} | ${sideText("cluster", pair.cluster)}`,
      ),
    );
  }
  if (cost.acceptedRateRatio !== null) {
    lines.push(
      `redis topology, fixed rate: accepted rate cluster / one Redis ${cost.acceptedRateRatio}, intake p99 ${cost.intakeP99Ms.cluster ?? "n/a"} ms vs ${cost.intakeP99Ms.single ?? "n/a"} ms`,
    );
  }
  return lines;
}
