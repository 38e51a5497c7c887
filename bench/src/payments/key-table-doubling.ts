// Redis keeps its keys in a hash table whose size is a power of two, and doubles it when the keys reach the
// size; the keys then move to the new table a few at a time on every command for seconds, and Redis' cpu rises
// by half (a payments --max run of 2026-11-25, in git history: 47 % and 54-60 % of a core at the stages that crossed 2^21 and 2^22
// keys, against 31-38 % at the same rates elsewhere, and those stages failed on either system). In a paired
// search the doubling lands on whichever system runs at that moment, so a stage that fails across it is run
// again, for either system alike.

/** The smallest table Redis' doubling is worth noticing at (smaller ones move in a blink). */
const SMALLEST_TABLE = 2 ** 17;

/** The power of two (2^n >= 2^17) the key count reached during the stage, or null when it crossed none. */
export function keyTableDoubling(keys: { atStart: number; atEnd: number } | null | undefined): number | null {
  if (keys === null || keys === undefined || keys.atEnd <= keys.atStart) return null;
  for (let size = SMALLEST_TABLE; size <= keys.atEnd; size *= 2) {
    if (keys.atStart < size && size <= keys.atEnd) return size;
  }
  return null;
}
