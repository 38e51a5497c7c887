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
  /** The median of the rounds' ratios, each a stage against the reference stages around it (see above). */
  ratio: number | null;
  /** Each round's ratio, in run order. */
  roundRatios: number[];
  /** The ratio of the two targets' medians, for comparison with results written before. */
  ratioOfMedians: number | null;
  goal: number;
  /** null when a side has no stage (its peer was not asked for). */
  met: boolean | null;
  /** Why a ratio at or above its goal is still not met. */
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

/** The target every goal's ratio has on one side, run between every two other stages. */
export const REFERENCE_TARGET: TargetKey = "floodgate";

/**
 * Each round's ratio of `numerator` to `denominator`, one of which is the reference: every stage of the other
 * side against the mean accepted/s of the reference stages nearest before and after it in the run (the one
 * there is at either end), in run order. Failed stages count (their 202s only); a reference stage that
 * accepted nothing is passed over, so a dead stage does not halve the mean, and a subject that accepted
 * nothing is a ratio of 0 as a numerator and none as a denominator.
 */
export function roundRatios(
  stages: readonly SaturationStage[],
  numerator: TargetKey,
  denominator: TargetKey,
): number[] {
  const subjectIsNumerator = denominator === REFERENCE_TARGET;
  if (!subjectIsNumerator && numerator !== REFERENCE_TARGET) {
    throw new Error(`a ratio needs ${REFERENCE_TARGET} on one side: ${numerator} / ${denominator}`);
  }
  const subject = subjectIsNumerator ? numerator : denominator;
  return stages.flatMap((stage, index) => {
    if (stage.target !== subject) return [];
    const reference = referenceAround(stages, index);
    if (reference === null) return [];
    if (subjectIsNumerator) return [stage.acceptedRate / reference];
    return stage.acceptedRate > 0 ? [reference / stage.acceptedRate] : [];
  });
}

/**
 * The mean accepted/s of the reference stages nearest before and after `index` that accepted anything; null
 * when there is none.
 */
function referenceAround(stages: readonly SaturationStage[], index: number): number | null {
  const isReference = (stage: SaturationStage) => stage.target === REFERENCE_TARGET && stage.acceptedRate > 0;
  const before = stages.slice(0, index).findLast(isReference);
  const after = stages.slice(index + 1).find(isReference);
  const rates = [before, after].flatMap((stage) => (stage === undefined ? [] : [stage.acceptedRate]));
  return rates.length === 0 ? null : rates.reduce((sum, rate) => sum + rate, 0) / rates.length;
}

export function ratioVerdicts(
  medians: readonly TargetMedians[],
  stages: readonly SaturationStage[],
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
        ratioOfMedians: null,
        goal,
        met: null,
        note: "not run",
      };
    }
    const perRound = roundRatios(stages, numerator, denominator);
    const middle = median(perRound);
    const failed = top.failedStages + bottom.failedStages;
    const reached = middle !== null && middle >= goal;
    return {
      name,
      numerator,
      denominator,
      ratio: middle === null ? null : Math.round(middle * 1000) / 1000,
      roundRatios: perRound.map((value) => Math.round(value * 1000) / 1000),
      ratioOfMedians: ratio3(top.acceptedRate, bottom.acceptedRate),
      goal,
      met: reached && failed === 0,
      note: reached && failed > 0 ? `${failed} failed stage(s)` : null,
    };
  });
}
