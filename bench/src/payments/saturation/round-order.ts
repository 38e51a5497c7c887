// The order of the saturation comparison's stages. Every ratio it judges has Floodgate's AUTH=off intake (the
// reference) on one side, so the reference runs between every two other stages: ref, A, ref, B, ref, C, ref,
// A, ... Each other stage is then judged against the reference stages just before and just after it, a
// minute or less apart, and a machine that speeds up or slows down over that minute moves both sides alike
// (saturation-verdict.ts). The others' order rotates by one per round, so none always follows the same
// neighbour or meets the machine at the same point of a round.

/** The list rotated left by `round` places. */
export function roundOrder<T>(targets: readonly T[], round: number): T[] {
  if (targets.length === 0) return [];
  const shift = round % targets.length;
  return [...targets.slice(shift), ...targets.slice(0, shift)];
}

export interface PlannedStage<T> {
  /** 1-based. The opening reference stage belongs to round 1; each later one to the stage it follows. */
  round: number;
  /** The stage's place within its round, 0-based. */
  position: number;
  target: T;
}

/**
 * The run's stages: the reference first, then per round each other target (rotated) followed by the reference.
 * `rounds` rounds of n others make 1 + 2·n·rounds stages; with no others, the reference once per round.
 */
export function bracketedStages<T>(reference: T, others: readonly T[], rounds: number): PlannedStage<T>[] {
  const stages: PlannedStage<T>[] = [];
  if (others.length === 0) {
    for (let round = 1; round <= rounds; round++) stages.push({ round, position: 0, target: reference });
    return stages;
  }
  stages.push({ round: 1, position: 0, target: reference });
  for (let round = 1; round <= rounds; round++) {
    let position = round === 1 ? 1 : 0;
    for (const target of roundOrder(others, round - 1)) {
      stages.push({ round, position: position++, target });
      stages.push({ round, position: position++, target: reference });
    }
  }
  return stages;
}

/**
 * One more round after the planned ones (steady-rounds.ts: a goal still short of steady comparisons): a fresh
 * reference stage, then each of `targets` (rotated as round `round` would be) followed by the reference. The
 * fresh one keeps the first new comparison from leaning on the reference stage that ended the planned rounds,
 * which may be the very jump that set a comparison aside.
 */
export function extraRound<T>(reference: T, targets: readonly T[], round: number): PlannedStage<T>[] {
  let position = 0;
  const stages: PlannedStage<T>[] = [{ round, position: position++, target: reference }];
  for (const target of roundOrder(targets, round - 1)) {
    stages.push({ round, position: position++, target });
    stages.push({ round, position: position++, target: reference });
  }
  return stages;
}
