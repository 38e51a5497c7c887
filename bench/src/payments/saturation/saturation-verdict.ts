// The saturation comparison's verdict (issue 30): each target's median accepted/s over the rounds, and the
// ratios the issue sets goals for. "floodgate" is the intake alone with AUTH=off; auth on is the same intake
// verifying a customer token per request. A ratio is met only when it reaches its goal and no stage of either
// side failed (a refused request is not throughput).
// Every goal compares a target with the AUTH=off intake, the reference: a goal's ratio is the median of its
// steady comparisons, each one stage against the reference stages around it (bracketed-comparisons.ts). With
// fewer steady comparisons than rounds were asked for, even after the extra rounds (steady-rounds.ts), a goal
// is not met: the machine changed under the run too often to judge it.
import { COMPARED_CHECKOUT_GOAL } from "../../harness/compared-checkout.ts";
import { median } from "../../harness/median.ts";
import { AUTH_RATE_GOAL } from "../auth-cost.ts";
import { ratio3 } from "../stage-pairs.ts";
import { bracketedComparisons, STEADY_REFERENCE_SPREAD_PERCENT } from "./bracketed-comparisons.ts";
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
  /** The median of the steady comparisons' ratios (bracketed-comparisons.ts). */
  ratio: number | null;
  /** Each steady comparison's ratio, in run order (the name results written before this field's change use). */
  roundRatios: number[];
  /** The comparisons set aside, in run order: their ratio and the reference stages' accepted/s, before then after. */
  unsteady: { ratio: number; references: number[] }[];
  /** How many steady comparisons the goal needs (the rounds asked for). */
  steadyNeeded: number;
  /** The ratio of the two targets' medians, for comparison with results written before. */
  ratioOfMedians: number | null;
  goal: number;
  /** null when a side has no stage (its peer was not asked for). */
  met: boolean | null;
  /** Why a ratio is not met beyond its value: failed stages, too few steady comparisons, or both. */
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

/**
 * How many steady comparisons the goals `target` is judged by lack of `needed` in the run so far: the most any
 * of them lacks. A goal with a failed stage on either side lacks none: it is not met whatever more rounds show.
 */
export function steadyShortfall(
  stages: readonly SaturationStage[],
  target: TargetKey,
  needed: number,
): number {
  const failed = (key: TargetKey) => stages.some((stage) => stage.target === key && !stage.passed);
  let most = 0;
  for (const goal of RATIO_GOALS) {
    if (goal.numerator !== target && goal.denominator !== target) continue;
    if (failed(goal.numerator) || failed(goal.denominator)) continue;
    const comparisons = bracketedComparisons(stages, goal.numerator, goal.denominator);
    const steady = comparisons.filter((comparison) => comparison.steady).length;
    most = Math.max(most, needed - steady);
  }
  return most;
}

/**
 * The goals' verdicts. `steadyNeeded`: the steady comparisons a goal needs (the rounds asked for); with fewer,
 * the goal is not met, whatever its ratio.
 */
export function ratioVerdicts(
  medians: readonly TargetMedians[],
  stages: readonly SaturationStage[],
  steadyNeeded: number,
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
    const comparisons = bracketedComparisons(stages, numerator, denominator);
    const steadyRatios = comparisons.filter((comparison) => comparison.steady).map((c) => c.ratio);
    const middle = median(steadyRatios);
    const failed = top.failedStages + bottom.failedStages;
    const reached = middle !== null && middle >= goal;
    const enough = steadyRatios.length >= steadyNeeded;
    const reasons = [
      ...(failed > 0 ? [`${failed} failed stage(s)`] : []),
      ...(enough
        ? []
        : [
            `${steadyRatios.length} steady comparison(s) of the ${steadyNeeded} needed: the reference moved more than ${STEADY_REFERENCE_SPREAD_PERCENT} % around the others`,
          ]),
    ];
    return {
      name,
      numerator,
      denominator,
      ratio: rounded(middle, 3),
      roundRatios: steadyRatios.map((value) => rounded(value, 3)!),
      unsteady: comparisons
        .filter((comparison) => !comparison.steady)
        .map((comparison) => ({ ratio: rounded(comparison.ratio, 3)!, references: comparison.references })),
      steadyNeeded,
      ratioOfMedians: ratio3(top.acceptedRate, bottom.acceptedRate),
      goal,
      met: reached && failed === 0 && enough,
      note: reasons.length > 0 ? reasons.join("; ") : null,
    };
  });
}
