// The search behind --max: double the offered rate while stages pass, then bisect between the best passing
// rate and the lowest failing one above it. Pure, so the stopping rules are tested without any load.

export interface StageVerdict {
  offeredRate: number;
  acceptedRate: number;
  passed: boolean;
}

export interface MaxRatePlan {
  startRate: number;
  /** A failing rate within this fraction of the best passing one ends the search. */
  precision: number;
  maxStages: number;
  /** Offered rates above this are not tried: the single-threaded load generator cannot produce them. */
  ceilingRate: number;
}

// 3%: a 10% bracket ended round 3's search at 8,000/s passing and 8,500/s failing, so the answer could be off by
// 6% in either direction; two more stages (about 30 s) narrow it to a bracket of at most 3%.
export const DEFAULT_MAX_RATE_PLAN: MaxRatePlan = {
  startRate: 500,
  precision: 0.03,
  maxStages: 12,
  ceilingRate: 64_000,
};

export interface StageLimits {
  p99Ms: number;
  /** Accepted/offered below this means the target (or the generator) could not keep the pace. */
  minAcceptedShare: number;
  /** Non-2xx responses and socket errors allowed, as a share of responses. */
  maxFailureShare: number;
}

export const DEFAULT_STAGE_LIMITS: StageLimits = {
  p99Ms: 50,
  minAcceptedShare: 0.95,
  maxFailureShare: 0.001,
};

/** What a stage is judged on. */
export interface StageMeasures {
  offeredRate: number;
  acceptedRate: number;
  p99Ms: number | null;
  failures: number;
  responses: number;
}

/**
 * Why a stage failed, one phrase per limit it missed (empty: it passed), so a summary says what failed instead
 * of a bare "fail" beside the other checks of the same stage.
 */
export function stageShortfalls(stage: StageMeasures, limits: StageLimits = DEFAULT_STAGE_LIMITS): string[] {
  if (stage.p99Ms === null || stage.responses === 0) return ["no answers"];
  const shortfalls: string[] = [];
  if (stage.p99Ms >= limits.p99Ms) shortfalls.push(`p99 ${stage.p99Ms} ms >= ${limits.p99Ms} ms`);
  if (stage.acceptedRate < stage.offeredRate * limits.minAcceptedShare) {
    const share = Math.floor((stage.acceptedRate / stage.offeredRate) * 1000) / 10;
    shortfalls.push(`accepted ${share} % of offered < ${limits.minAcceptedShare * 100} %`);
  }
  if (stage.failures > stage.responses * limits.maxFailureShare) {
    shortfalls.push(
      `failures ${stage.failures} > ${limits.maxFailureShare * 100} % of ${stage.responses} answers`,
    );
  }
  return shortfalls;
}

export function stagePassed(stage: StageMeasures, limits: StageLimits = DEFAULT_STAGE_LIMITS): boolean {
  return stageShortfalls(stage, limits).length === 0;
}

/** The next offered rate to try, or null when the search is over. */
export function nextRate(
  stages: readonly StageVerdict[],
  plan: MaxRatePlan = DEFAULT_MAX_RATE_PLAN,
): number | null {
  if (stages.length === 0) return plan.startRate;
  if (stages.length >= plan.maxStages) return null;
  const best = Math.max(0, ...stages.filter((s) => s.passed).map((s) => s.offeredRate));
  const lowestFail = Math.min(
    ...stages.filter((s) => !s.passed && s.offeredRate > best).map((s) => s.offeredRate),
  );
  if (lowestFail === Number.POSITIVE_INFINITY) {
    const next = best * 2;
    return next > plan.ceilingRate ? null : next;
  }
  if (best > 0 && (lowestFail - best) / best <= plan.precision) return null;
  // Below 20/s the answer is "it does not work", not a number worth refining.
  if (best === 0 && lowestFail <= 20) return null;
  const next = Math.round((best + lowestFail) / 2 / 10) * 10;
  return next <= best || next >= lowestFail ? null : next;
}

/** The highest accepted rate among passing stages, or null if none passed. */
export function maxAcceptedRate(stages: readonly StageVerdict[]): number | null {
  const passing = stages.filter((s) => s.passed);
  return passing.length === 0 ? null : Math.max(...passing.map((s) => s.acceptedRate));
}
