// The saturation comparison's rounds, with the extra ones that replace unsteady comparisons: the planned
// rounds (round-order.ts), then, while a target's goals have fewer steady comparisons than rounds were asked
// for (bracketed-comparisons.ts: the reference stages around a stage more than STEADY_REFERENCE_SPREAD_PERCENT
// apart), one more round of the targets still short, up to as many rounds again: a run can take up to twice
// its planned time on an unsteady hour. An hour that stays unsteady ends with too few, and those goals are not
// met (saturation-verdict.ts): the run says so rather than judging on a machine that changed under it.
import { STEADY_REFERENCE_SPREAD_PERCENT } from "./bracketed-comparisons.ts";
import { bracketedStages, extraRound, type PlannedStage } from "./round-order.ts";
import type { SaturationStage, TargetKey } from "./saturation-stage.ts";
import { steadyShortfall } from "./saturation-verdict.ts";

export interface RoundTarget {
  key: TargetKey;
  label: string;
}

/**
 * Runs every stage through `runStage` in order, the planned rounds then the extra ones, and resolves to the
 * stages run, once the goals have their steady comparisons or the extra rounds are spent. A target whose goals
 * already failed (a failed stage on either side) gets no extra round: more stages would not change them.
 */
export async function runSteadyRounds<T extends RoundTarget>(options: {
  reference: T;
  others: readonly T[];
  rounds: number;
  runStage(planned: PlannedStage<T>): Promise<SaturationStage>;
  log(line: string): void;
}): Promise<SaturationStage[]> {
  const { reference, others, rounds, runStage } = options;
  const stages: SaturationStage[] = [];
  for (const planned of bracketedStages(reference, others, rounds)) stages.push(await runStage(planned));
  for (let round = rounds + 1; round <= 2 * rounds; round++) {
    const short = others.flatMap((target) => {
      const lacking = steadyShortfall(stages, target.key, rounds);
      return lacking > 0 ? [{ target, lacking }] : [];
    });
    if (short.length === 0) break;
    const lines = short.map(({ target, lacking }) => `${target.label} ${lacking} short of ${rounds}`);
    options.log(
      `round ${round} (extra): steady comparisons ${lines.join(", ")} (the AUTH=off stages around the others were more than ${STEADY_REFERENCE_SPREAD_PERCENT} % apart)`,
    );
    const targets = short.map(({ target }) => target);
    for (const planned of extraRound(reference, targets, round)) stages.push(await runStage(planned));
  }
  return stages;
}
