// The search behind --sustained: start at --rate, step up by a quarter while stages pass, and once one fails
// bisect between the best passing rate and the lowest failing one a couple of times. Coarser than --max on
// purpose: each stage is a minute of load, so the answer is bracketed within a few stages. Pure, tested alone.

export interface SustainedVerdict {
  offeredRate: number;
  passed: boolean;
}

export interface SustainedPlan {
  startRate: number;
  /** Next rate after a pass, while nothing has failed: best * stepFactor. */
  stepFactor: number;
  /** Stages run after the first failure, each halving the bracket. */
  bisections: number;
  maxStages: number;
  /** Offered rates above this are not tried (the load generator cannot produce them). */
  ceilingRate: number;
  /** Rates are rounded to this step, so stage rates read as round numbers. */
  roundTo: number;
}

export const DEFAULT_SUSTAINED_PLAN: Omit<SustainedPlan, "startRate" | "maxStages"> = {
  stepFactor: 1.25,
  bisections: 2,
  ceilingRate: 64_000,
  roundTo: 100,
};

const rounded = (rate: number, step: number) => Math.max(step, Math.round(rate / step) * step);

/** The next offered rate, or null when the search is over. */
export function nextSustainedRate(stages: readonly SustainedVerdict[], plan: SustainedPlan): number | null {
  if (stages.length === 0) return plan.startRate;
  if (stages.length >= plan.maxStages) return null;
  const firstFailure = stages.findIndex((stage) => !stage.passed);
  const best = Math.max(0, ...stages.filter((s) => s.passed).map((s) => s.offeredRate));
  if (firstFailure === -1) {
    const next = rounded(best * plan.stepFactor, plan.roundTo);
    return next > plan.ceilingRate ? null : next;
  }
  if (stages.length - 1 - firstFailure >= plan.bisections) return null;
  const lowestFail = Math.min(
    ...stages.filter((s) => !s.passed && s.offeredRate > best).map((s) => s.offeredRate),
  );
  if (lowestFail === Number.POSITIVE_INFINITY) return null;
  const next = rounded((best + lowestFail) / 2, plan.roundTo);
  return next <= best || next >= lowestFail ? null : next;
}

/** The highest passing offered rate, or null if none passed. */
export function highestSustainedRate(stages: readonly SustainedVerdict[]): number | null {
  const passing = stages.filter((s) => s.passed).map((s) => s.offeredRate);
  return passing.length === 0 ? null : Math.max(...passing);
}
