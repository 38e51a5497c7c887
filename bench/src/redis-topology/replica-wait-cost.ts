// payments --redis cluster-wait: what REDIS_WAIT_REPLICAS=1 costs. Two systems on one private Redis Cluster of
// 3 masters with a replica each, the same measured phases on both in pairs: one answers 202 once its master has
// the payment (REDIS_WAIT_REPLICAS=0), the other once a replica confirmed it too (its master's next fence write
// and WAIT 1, packages/redis-connections replica-wait.ts). The difference is the price of a 202 that survives a master's crash.
import type { AuthPhases } from "../payments/auth-cost.ts";

/** A system's phases as compared here: the fixed-rate run's median too (the runs record it). */
type WaitPhases = Omit<AuthPhases, "rate"> & {
  rate?: { acceptedRate: number; intakeLatencyMs: { p50: number; p99: number } | null };
};

import { formatCount } from "../harness/progress-line.ts";
import { ratio3, type StageSide, zipStagePairs } from "../payments/stage-pairs.ts";

export interface ReplicaWaitStagePair {
  offeredRate: number;
  first: "no wait" | "wait";
  noWait: StageSide;
  wait: StageSide;
}

export interface ReplicaWaitCost {
  noWaitMaxRate: number | null;
  waitMaxRate: number | null;
  /** waitMaxRate / noWaitMaxRate (3 decimals); null without --max or when a search found no passing stage. */
  maxRateRatio: number | null;
  /** The fixed-rate run: accepted rates' ratio (wait / no wait) and both intakes' p50 and p99. */
  acceptedRateRatio: number | null;
  intakeP50Ms: { noWait: number | null; wait: number | null };
  intakeP99Ms: { noWait: number | null; wait: number | null };
  stagePairs: ReplicaWaitStagePair[];
}

export function compareReplicaWait(noWait: WaitPhases, wait: WaitPhases): ReplicaWaitCost {
  return {
    noWaitMaxRate: noWait.max?.maxAcceptedRate ?? null,
    waitMaxRate: wait.max?.maxAcceptedRate ?? null,
    maxRateRatio: ratio3(wait.max?.maxAcceptedRate, noWait.max?.maxAcceptedRate),
    acceptedRateRatio: ratio3(wait.rate?.acceptedRate, noWait.rate?.acceptedRate),
    intakeP50Ms: {
      noWait: noWait.rate?.intakeLatencyMs?.p50 ?? null,
      wait: wait.rate?.intakeLatencyMs?.p50 ?? null,
    },
    intakeP99Ms: {
      noWait: noWait.rate?.intakeLatencyMs?.p99 ?? null,
      wait: wait.rate?.intakeLatencyMs?.p99 ?? null,
    },
    stagePairs: zipStagePairs(noWait.max?.stages ?? [], wait.max?.stages ?? []).map((pair) => ({
      offeredRate: pair.offeredRate,
      first: pair.ranFirst === 0 ? "no wait" : "wait",
      noWait: pair.sides[0],
      wait: pair.sides[1],
    })),
  };
}

const sideText = (name: string, s: StageSide) =>
  `${name} accepted ${formatCount(s.acceptedRate)}/s p99 ${s.p99Ms ?? "n/a"} ms ${s.passed ? "pass" : "fail"}`;

export function replicaWaitLines(cost: ReplicaWaitCost): string[] {
  const lines: string[] = [];
  const rate = (value: number | null) => (value === null ? "none passed" : `${formatCount(value)}/s`);
  if (cost.noWaitMaxRate !== null || cost.waitMaxRate !== null || cost.stagePairs.length > 0) {
    const ratio =
      cost.maxRateRatio === null
        ? "no ratio (a search found no passing stage)"
        : `WAIT 1 = ${(cost.maxRateRatio * 100).toFixed(1)} % of no WAIT`;
    lines.push(
      `replica wait, --max (paired stages): REDIS_WAIT_REPLICAS=0 ${rate(cost.noWaitMaxRate)}, =1 ${rate(cost.waitMaxRate)}; ${ratio}`,
      ...cost.stagePairs.map(
        (pair, i) =>
          `  pair ${i + 1} @ ${formatCount(pair.offeredRate)}/s (${pair.first} first): ${sideText("no wait", pair.noWait)} | ${sideText("wait", pair.wait)}`,
      ),
    );
  }
  if (cost.acceptedRateRatio !== null) {
    lines.push(
      `replica wait, fixed rate: accepted rate WAIT 1 / no WAIT ${cost.acceptedRateRatio}, intake p50 ${cost.intakeP50Ms.wait ?? "n/a"} vs ${cost.intakeP50Ms.noWait ?? "n/a"} ms, p99 ${cost.intakeP99Ms.wait ?? "n/a"} vs ${cost.intakeP99Ms.noWait ?? "n/a"} ms`,
    );
  }
  return lines;
}
