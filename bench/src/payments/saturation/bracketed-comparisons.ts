// How the saturation comparison judges one stage (issue 30): against the reference, Floodgate's AUTH=off intake,
// which runs between every two other stages (round-order.ts). A stage's ratio takes its accepted/s against the
// mean of the reference stages just before and just after it: this machine's speed varies nearly twofold within
// a run (one run's intake stages took 59 to 111 µs of cpu per request), so figures taken apart can come from
// different hours of it, and bracketing a stage cancels a steady drift over the minute its neighbours span.
//
// Bracketing cannot cancel a jump. When the two reference stages around a stage differ by more than
// STEADY_REFERENCE_SPREAD_PERCENT of the lower, the machine's speed changed during that comparison by more than
// the margins the goals are met or missed by, and its ratio can sit on either side of a goal whatever the code
// did: such a comparison is unsteady, kept in the result but left out of the verdict (saturation-verdict.ts),
// and extra rounds replace it (steady-rounds.ts). Steadiness is read from the reference stages, not from the
// judged stage's own rate. The after-reference runs right after the judged stage, though, so whatever that
// stage leaves behind on the machine can move it: the result keeps each set-aside comparison's two reference
// rates in run order, for a reader to see which way they moved. A dip confined to the judged stage is not
// caught: the check sees level shifts only.
import type { SaturationStage, TargetKey } from "./saturation-stage.ts";

/** The target every goal's ratio has on one side, run between every two other stages. */
export const REFERENCE_TARGET: TargetKey = "floodgate";

/**
 * How far apart, in percent of the lower, the reference stages around a stage may be for its comparison to
 * count. A reference that moved 10 % across a comparison can move its ratio by up to half that when the move
 * fell at the judged stage's edge, as much as the margins the goals are judged by; on a quiet hour of the AMD
 * EPYC host the reference's neighbouring stages differed by 0.3-7.8 % but once 11.5 % (20261201T125858Z), on
 * an unsteady one by up to 71 % (20261201T025713Z).
 */
export const STEADY_REFERENCE_SPREAD_PERCENT = 10;

/** One stage of a goal's subject judged against the reference stages around it. */
export interface Comparison {
  ratio: number;
  /** The accepted/s of the reference stages it was judged against, in run order. */
  references: number[];
  /** True only with a live reference stage right before and right after it, within the spread of each other. */
  steady: boolean;
}

/** Whether two reference stages at these rates held the machine steady enough to judge the stage between them. */
export function steadyReferences(before: number, after: number): boolean {
  const low = Math.min(before, after);
  return Math.max(before, after) - low <= (STEADY_REFERENCE_SPREAD_PERCENT / 100) * low;
}

/**
 * Every stage of the goal's subject (the side that is not the reference) judged against the mean accepted/s of
 * the live reference stages nearest before and after it (the one there is at either end), in run order. A
 * reference stage that accepted nothing is passed over, so a dead stage does not halve the mean; a subject that
 * accepted nothing is a ratio of 0 as a numerator and none as a denominator. Failed stages count (their 202s
 * only): they fail the goal in the verdict.
 */
export function bracketedComparisons(
  stages: readonly SaturationStage[],
  numerator: TargetKey,
  denominator: TargetKey,
): Comparison[] {
  const subjectIsNumerator = denominator === REFERENCE_TARGET;
  if (!subjectIsNumerator && numerator !== REFERENCE_TARGET) {
    throw new Error(`a ratio needs ${REFERENCE_TARGET} on one side: ${numerator} / ${denominator}`);
  }
  const subject = subjectIsNumerator ? numerator : denominator;
  return stages.flatMap((stage, index) => {
    if (stage.target !== subject) return [];
    const before = stages.slice(0, index).findLast(isLiveReference);
    const after = stages.slice(index + 1).find(isLiveReference);
    const references = [before, after].flatMap((found) => (found === undefined ? [] : [found.acceptedRate]));
    if (references.length === 0) return [];
    const reference = references.reduce((sum, rate) => sum + rate, 0) / references.length;
    // Only neighbours bracket a stage: a reference two stages away, or at one side only, leaves a gap in which
    // the machine may have moved unseen.
    const steady =
      before !== undefined &&
      after !== undefined &&
      before === stages[index - 1] &&
      after === stages[index + 1] &&
      steadyReferences(before.acceptedRate, after.acceptedRate);
    if (subjectIsNumerator) return [{ ratio: stage.acceptedRate / reference, references, steady }];
    return stage.acceptedRate > 0 ? [{ ratio: reference / stage.acceptedRate, references, steady }] : [];
  });
}

/** bracketedComparisons' ratios, steady or not, in run order. */
export function comparisonRatios(
  stages: readonly SaturationStage[],
  numerator: TargetKey,
  denominator: TargetKey,
): number[] {
  return bracketedComparisons(stages, numerator, denominator).map((comparison) => comparison.ratio);
}

function isLiveReference(stage: SaturationStage): boolean {
  return stage.target === REFERENCE_TARGET && stage.acceptedRate > 0;
}
