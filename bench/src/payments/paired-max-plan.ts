// The paired --max search (payments --auth compare): every stage rate runs on both systems back to back, so
// both see the same machine at nearly the same time, and each system's verdicts are judged on their own. Pure,
// so the pairing order and the ending rule are tested without any load.
import {
  DEFAULT_MAX_RATE_PLAN,
  type MaxRatePlan,
  nextRate,
  type StageVerdict,
} from "../harness/max-rate-plan.ts";

/** The two systems' verdicts, one per pair each, in pair order (index 0: auth on, 1: AUTH=off). */
export type PairedVerdicts = readonly [readonly StageVerdict[], readonly StageVerdict[]];

// 20 pairs where a single search allows 12: when one system passes a doubling stage the other fails, each then
// needs its own bisection (the passing one overshooting by doubling, as alone), and a pair's rate refines only
// one bracket. 7,300/s against 8,100/s takes 17 pairs to end both within the plan's 3 % (the tests).
export const DEFAULT_PAIRED_PLAN: MaxRatePlan = { ...DEFAULT_MAX_RATE_PLAN, maxStages: 20 };

/** Which system runs first in pair `index` (0-based). The second of a pair meets a Redis and a Postgres that
 * just took the first one's payments (and their writes, vacuum, checkpoints); alternating puts that on each side
 * in turn, so it cancels on average instead of always landing on one. */
export function pairOrder(index: number): readonly [0, 1] | readonly [1, 0] {
  return index % 2 === 0 ? [0, 1] : [1, 0];
}

/** Above the best pass and below the lowest failure above it: a verdict there moves the system's bracket. */
function refines(stages: readonly StageVerdict[], rate: number): boolean {
  const best = Math.max(0, ...stages.filter((s) => s.passed).map((s) => s.offeredRate));
  const lowestFail = Math.min(
    ...stages.filter((s) => !s.passed && s.offeredRate > best).map((s) => s.offeredRate),
  );
  return rate > best && rate < lowestFail;
}

/**
 * The next pair's rate, or null when the search is over. Each system's own search (max-rate-plan.ts: double while
 * it passes, then bisect to the plan's precision) names the rate it wants; the search goes on while either still
 * wants one, so it ends only where both have failed above their best pass within the precision (or at the
 * plan's pair limit). When both want different rates, a rate that moves both brackets is taken, else the lower.
 */
export function nextPairedRate(
  verdicts: PairedVerdicts,
  plan: MaxRatePlan = DEFAULT_PAIRED_PLAN,
): number | null {
  const [first, second] = verdicts;
  if (first.length !== second.length) throw new Error("paired verdicts: both systems need one per pair");
  if (first.length >= plan.maxStages) return null;
  const own: MaxRatePlan = { ...plan, maxStages: Number.POSITIVE_INFINITY };
  const wanted = [nextRate(first, own), nextRate(second, own)].filter((rate) => rate !== null);
  if (wanted.length === 0) return null;
  const movesBoth = wanted.filter((rate) => refines(first, rate) && refines(second, rate));
  return Math.min(...(movesBoth.length > 0 ? movesBoth : wanted));
}
