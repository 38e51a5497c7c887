// A warning that repeats every tick while Redis is away would bury the line that explains it: one line per
// concern per interval, with how many were held back.
export class ThrottledWarning {
  readonly #intervalMs: number;
  readonly #lastAt = new Map<string, { at: number; held: number }>();

  constructor(intervalMs = 10_000) {
    this.#intervalMs = intervalMs;
  }

  /** Calls `emit` with the count held back since the last line, or counts this one as held back. */
  warn(concern: string, emit: (heldBack: number) => void, nowMs = Date.now()): void {
    const last = this.#lastAt.get(concern);
    if (last && nowMs - last.at < this.#intervalMs) {
      last.held++;
      return;
    }
    emit(last?.held ?? 0);
    this.#lastAt.set(concern, { at: nowMs, held: 0 });
  }
}
