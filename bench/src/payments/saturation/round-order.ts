// The order targets run in each round of the saturation comparison: the list rotated by one per round, so no
// target always runs first (on a warm machine) or right after the same neighbour (on its leftover keys).
export function roundOrder<T>(targets: readonly T[], round: number): T[] {
  if (targets.length === 0) return [];
  const shift = round % targets.length;
  return [...targets.slice(shift), ...targets.slice(0, shift)];
}
