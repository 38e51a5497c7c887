// The paired --max search's stages side by side (paired-max-search.ts): stage i of each system is pair i, at
// the same offered rate. Comparisons (auth-cost.ts, redis-topology-cost.ts) name the two sides their own way.
import type { MaxStage } from "./max-rate-search.ts";

export interface StageSide {
  acceptedRate: number;
  p99Ms: number | null;
  passed: boolean;
}

export interface ZippedPair {
  offeredRate: number;
  /** Which system ran the rate first (they alternate): 0 the first system, 1 the second. */
  ranFirst: 0 | 1;
  sides: [StageSide, StageSide];
}

export const stageSide = (stage: MaxStage): StageSide => ({
  acceptedRate: stage.acceptedRate,
  p99Ms: stage.p99Ms,
  passed: stage.passed,
});

export function zipStagePairs(first: readonly MaxStage[], second: readonly MaxStage[]): ZippedPair[] {
  return first.flatMap((a, i) => {
    const b = second[i];
    if (b === undefined || b.offeredRate !== a.offeredRate) return [];
    return [
      {
        offeredRate: a.offeredRate,
        ranFirst: a.ranFirst === false ? 1 : 0,
        sides: [stageSide(a), stageSide(b)],
      },
    ];
  });
}

/** a / b to 3 decimals; null when either is missing or b is 0. */
export const ratio3 = (a: number | null | undefined, b: number | null | undefined): number | null =>
  a == null || b == null || b === 0 ? null : Math.round((a / b) * 1000) / 1000;
