// The saturation comparison's rounds, with the extra ones that replace unsteady comparisons: the planned
// rounds (round-order.ts), then, while a target's goals have fewer steady comparisons than rounds were asked
// for (saturation-verdict.ts: the reference stages around it moved more than STEADY_REFERENCE_SPREAD), one
// more round of the targets still short, up to as many rounds again. An hour that stays unsteady ends with too
// few, and its goals are not met: the run says so rather than judging on a machine that changed under it.
import { bracketedStages, extraRound, type PlannedStage } from "./round-order.ts";
import type { SaturationStage, TargetKey } from "./saturation-stage.ts";
import { STEADY_REFERENCE_SPREAD, steadyShortfall } from "./saturation-verdict.ts";

export interface RoundTarget {
  key: TargetKey;
  label: string;
}

/**
 * Runs every stage through `runStage` (which appends it to `stages`) in order: the planned rounds, then the
 * extra ones. Resolves when the goals have their steady comparisons or the extra rounds are spent.
 */
export async function runSteadyRounds<T extends RoundTarget>(options: {
  reference: T;
  others: readonly T[];
  rounds: number;
  stages: readonly SaturationStage[];
  runStage(planned: PlannedStage<T>): Promise<void>;
  log(line: string): void;
}): Promise<void> {
  const { reference, others, rounds, stages, runStage } = options;
  for (const planned of bracketedStages(reference, others, rounds)) await runStage(planned);
  for (let round = rounds + 1; round <= 2 * rounds; round++) {
    const short = others.flatMap((target) => {
      const lacking = steadyShortfall(stages, target.key, rounds);
      return lacking > 0 ? [{ target, lacking }] : [];
    });
    if (short.length === 0) return;
    const lines = short.map(({ target, lacking }) => `${target.label} ${lacking} short of ${rounds}`);
    options.log(
      `round ${round} (extra): steady comparisons ${lines.join(", ")} (the AUTH=off stages around the others moved more than ${STEADY_REFERENCE_SPREAD * 100} %)`,
    );
    const targets = short.map(({ target }) => target);
    for (const planned of extraRound(reference, targets, round)) await runStage(planned);
  }
}
