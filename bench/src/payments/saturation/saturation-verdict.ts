// The saturation comparison's verdict (issue 30): each target's median accepted/s over the rounds, and the
// ratios the issue sets goals for. "floodgate" is the intake alone with AUTH=off; auth on is the same intake
// verifying a customer token per request. A ratio is met only when it reaches its goal and no stage of either
// side failed (a refused request is not throughput).
// Every goal compares a target with the AUTH=off intake, the reference, which runs between every two other
// stages (round-order.ts). A ratio is the median of the rounds' own ratios, each one stage's accepted/s against
// the mean of the reference stages just before and just after it: this machine's speed varies nearly twofold
// within a run (one run's intake stages took 59 to 111 µs of cpu per request), so figures taken apart can come
// from different hours of it (one run's rounds gave 0.49-0.83 for floodgate / raw, median 0.55, while its
// medians' ratio said 0.72), and even adjacent stages can meet a machine that drifts between them (one run's
// AUTH=off then auth on, back to back, gave 0.835, the raw peer's next stage 11 % below its own median).
// Bracketing cancels a steady drift, not a jump: when the two reference stages around a stage differ by more
// than STEADY_REFERENCE_SPREAD, the machine's speed changed during that comparison by more than the goals'
// margins, and its ratio could sit on either side of a goal whatever the code did. Such a comparison is set
// aside (kept in the result, not in the median), and the run adds rounds until each goal has as many steady
// comparisons as rounds were asked for (saturation-scenario.ts). Whether a comparison is steady is read from
// the reference stages alone, never from the stage judged, so setting one aside favours neither side.
import { COMPARED_CHECKOUT_GOAL } from "../../harness/compared-checkout.ts";
import { median } from "../../harness/median.ts";
import { AUTH_RATE_GOAL } from "../auth-cost.ts";
import { ratio3 } from "../stage-pairs.ts";
import type { SaturationStage, TargetKey } from "./saturation-stage.ts";

export interface TargetMedians {
  target: TargetKey;
  stages: number;
  failedStages: number;
  acceptedRate: number | null;
  p99Ms: number | null;
  /** µs of cpu per accepted request: the target's processes, Redis (INFO), wrk. */
  cpuPerAcceptedUs: { target: number | null; redis: number | null; loadGenerator: number | null };
}

export interface RatioVerdict {
  name: string;
  numerator: TargetKey;
  denominator: TargetKey;
  /** The median of the steady rounds' ratios, each a stage against the reference stages around it (see above). */
  ratio: number | null;
  /** Each steady round's ratio, in run order. */
  roundRatios: number[];
  /** The comparisons set aside, in run order: their ratio and the reference stages' accepted/s around them. */
  unsteady: { ratio: number; references: number[] }[];
  /** How many steady comparisons the goal needs (the rounds asked for). */
  steadyNeeded: number;
  /** The ratio of the two targets' medians, for comparison with results written before. */
  ratioOfMedians: number | null;
  goal: number;
  /** null when a side has no stage (its peer was not asked for). */
  met: boolean | null;
  /** Why a ratio is not met beyond its value: failed stages (at or above its goal), too few steady comparisons. */
  note: string | null;
}

export const RATIO_GOALS: readonly {
  name: string;
  numerator: TargetKey;
  denominator: TargetKey;
  goal: number;
}[] = [
  { name: "floodgate / raw", numerator: "floodgate", denominator: "raw", goal: 0.6 },
  { name: "floodgate / bullmq", numerator: "floodgate", denominator: "bullmq", goal: 1.0 },
  // A change's cost, measured against the intake of another checkout in the same run (--compare-checkout): the
  // goal is to keep the rate within this machine's stage-to-stage spread, not to beat it.
  {
    name: "floodgate / compared checkout",
    numerator: "floodgate",
    denominator: "floodgateCompared",
    goal: COMPARED_CHECKOUT_GOAL,
  },
  {
    name: "auth on / AUTH=off",
    numerator: "floodgateAuthOn",
    denominator: "floodgate",
    goal: AUTH_RATE_GOAL,
  },
];

const round3 = (value: number) => Math.round(value * 1000) / 1000;
const present = (values: readonly (number | null)[]) => values.filter((v): v is number => v !== null);
const rounded = (value: number | null, places = 0) =>
  value === null ? null : Math.round(value * 10 ** places) / 10 ** places;

export function targetMedians(target: TargetKey, stages: readonly SaturationStage[]): TargetMedians {
  const own = stages.filter((stage) => stage.target === target);
  const cpu = (pick: (stage: SaturationStage) => number | null) => rounded(median(present(own.map(pick))), 1);
  return {
    target,
    stages: own.length,
    failedStages: own.filter((stage) => !stage.passed).length,
    // Over every stage: a failed one counts its 202s only, and fails the verdict below.
    acceptedRate: rounded(median(own.map((stage) => stage.acceptedRate))),
    p99Ms: rounded(median(own.map((stage) => stage.latencyMs.p99)), 1),
    cpuPerAcceptedUs: {
      target: cpu((stage) => stage.cpu.perAcceptedUs.target),
      redis: cpu((stage) => stage.cpu.perAcceptedUs.redisInfo),
      loadGenerator: cpu((stage) => stage.cpu.perAcceptedUs.loadGenerator),
    },
  };
}

/** The target every goal's ratio has on one side, run between every two other stages. */
export const REFERENCE_TARGET: TargetKey = "floodgate";

/**
 * How far apart (as a share of the lower) the reference stages around a stage may be for its comparison to
 * count. A reference that moved 10 % within a comparison can move its ratio by up to half that if the change
 * fell inside the stage judged, as much as the margins the goals are met or missed by; on a quiet hour of the
 * AMD EPYC host the reference's neighbouring stages differed by 1.6-7.9 %, on an unsteady one by up to 71 %.
 */
export const STEADY_REFERENCE_SPREAD = 0.1;

/** One stage of a goal's subject judged against the reference stages around it. */
export interface Comparison {
  ratio: number;
  /** The accepted/s of the reference stages it was judged against: before and after, or the one there is. */
  references: number[];
  /** False when its two reference stages differ by more than STEADY_REFERENCE_SPREAD. */
  steady: boolean;
}

/** Whether reference stages at these rates held the machine steady enough to judge the stage between them. */
export function steadyReferences(references: readonly number[]): boolean {
  if (references.length < 2) return true;
  const low = Math.min(...references);
  const high = Math.max(...references);
  return high - low <= STEADY_REFERENCE_SPREAD * low;
}

/**
 * Each round's ratio of `numerator` to `denominator`, one of which is the reference: every stage of the other
 * side against the mean accepted/s of the reference stages nearest before and after it in the run (the one
 * there is at either end), in run order. Failed stages count (their 202s only); a reference stage that
 * accepted nothing is passed over, so a dead stage does not halve the mean, and a subject that accepted
 * nothing is a ratio of 0 as a numerator and none as a denominator.
 */
export function roundComparisons(
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
    const references = referencesAround(stages, index);
    if (references.length === 0) return [];
    const reference = references.reduce((sum, rate) => sum + rate, 0) / references.length;
    const steady = steadyReferences(references);
    if (subjectIsNumerator) return [{ ratio: stage.acceptedRate / reference, references, steady }];
    return stage.acceptedRate > 0 ? [{ ratio: reference / stage.acceptedRate, references, steady }] : [];
  });
}

/** roundComparisons' ratios, steady or not, in run order. */
export function roundRatios(
  stages: readonly SaturationStage[],
  numerator: TargetKey,
  denominator: TargetKey,
): number[] {
  return roundComparisons(stages, numerator, denominator).map((comparison) => comparison.ratio);
}

/**
 * How many steady comparisons the goals `target` is judged by (against the reference) lack of `needed` in the
 * run so far: the most any of them lacks.
 */
export function steadyShortfall(
  stages: readonly SaturationStage[],
  target: TargetKey,
  needed: number,
): number {
  let most = 0;
  for (const goal of RATIO_GOALS) {
    if (goal.numerator !== target && goal.denominator !== target) continue;
    const comparisons = roundComparisons(stages, goal.numerator, goal.denominator);
    const steady = comparisons.filter((comparison) => comparison.steady).length;
    most = Math.max(most, needed - steady);
  }
  return most;
}

/**
 * The accepted/s of the reference stages nearest before and after `index` that accepted anything (one at
 * either end of the run, none when there is none).
 */
function referencesAround(stages: readonly SaturationStage[], index: number): number[] {
  const isReference = (stage: SaturationStage) => stage.target === REFERENCE_TARGET && stage.acceptedRate > 0;
  const before = stages.slice(0, index).findLast(isReference);
  const after = stages.slice(index + 1).find(isReference);
  return [before, after].flatMap((stage) => (stage === undefined ? [] : [stage.acceptedRate]));
}

/**
 * The goals' verdicts. `steadyNeeded`: the steady comparisons a goal needs (the rounds asked for); with fewer,
 * the goal is not met, whatever its ratio.
 */
export function ratioVerdicts(
  medians: readonly TargetMedians[],
  stages: readonly SaturationStage[],
  steadyNeeded = 1,
): RatioVerdict[] {
  const of = (key: TargetKey) => medians.find((m) => m.target === key && m.stages > 0);
  return RATIO_GOALS.map(({ name, numerator, denominator, goal }) => {
    const top = of(numerator);
    const bottom = of(denominator);
    if (top === undefined || bottom === undefined) {
      return {
        name,
        numerator,
        denominator,
        ratio: null,
        roundRatios: [],
        unsteady: [],
        steadyNeeded,
        ratioOfMedians: null,
        goal,
        met: null,
        note: "not run",
      };
    }
    const comparisons = roundComparisons(stages, numerator, denominator);
    const perRound = comparisons.filter((comparison) => comparison.steady).map((c) => c.ratio);
    const middle = median(perRound);
    const failed = top.failedStages + bottom.failedStages;
    const reached = middle !== null && middle >= goal;
    const enough = perRound.length >= steadyNeeded;
    return {
      name,
      numerator,
      denominator,
      ratio: middle === null ? null : round3(middle),
      roundRatios: perRound.map(round3),
      unsteady: comparisons
        .filter((comparison) => !comparison.steady)
        .map((comparison) => ({ ratio: round3(comparison.ratio), references: comparison.references })),
      steadyNeeded,
      ratioOfMedians: ratio3(top.acceptedRate, bottom.acceptedRate),
      goal,
      met: reached && failed === 0 && enough,
      note:
        reached && failed > 0
          ? `${failed} failed stage(s)`
          : enough
            ? null
            : `${perRound.length} steady comparison(s) of the ${steadyNeeded} needed: the reference moved more than ${STEADY_REFERENCE_SPREAD * 100} % around the others`,
    };
  });
}
