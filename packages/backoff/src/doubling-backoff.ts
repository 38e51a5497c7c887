// How long to wait before trying again, for every server-side retry: the first delay, doubled per attempt in a
// row, up to a ceiling. Each caller keeps its own numbers (a shard 200 ms to 10 s, a Redis reconnect 100 ms to
// 2 s, a webhook 30 s to 6 h); only the formula is shared, so it cannot drift between copies. The checkout SDK
// keeps its own copy (packages/checkout-sdk/src/backoff.ts): it ships alone, with no server-side dependency.

/**
 * How a delay is spread, so that many callers that failed together do not all come back together:
 * - "none": exactly the doubled delay (one caller alone, or a schedule someone reads in a log or a test);
 * - "equal": anywhere between half of it and all of it (never much sooner than the schedule says);
 * - "full": anywhere between 0 and all of it (the widest spread, for crowds of clients).
 */
export type Jitter = "none" | "equal" | "full";

export interface DoublingBackoff {
  /** The delay before the first retry (attempt 1). */
  firstMs: number;
  /** The ceiling: no delay is longer, whatever the attempt. */
  maxMs: number;
  /** "none" unless given. */
  jitter?: Jitter;
}

/**
 * The delay before retry `attempt` (1 = the first retry; below 1 counts as 1): min(firstMs * 2^(attempt-1),
 * maxMs), spread by the jitter. `random` returns [0, 1) like Math.random, which it defaults to.
 */
export function doublingDelayMs(
  backoff: DoublingBackoff,
  attempt: number,
  random: () => number = Math.random,
): number {
  const delay = Math.min(backoff.firstMs * 2 ** Math.max(0, attempt - 1), backoff.maxMs);
  switch (backoff.jitter ?? "none") {
    case "none":
      return delay;
    case "equal":
      return delay * (0.5 + random() / 2);
    case "full":
      return delay * random();
  }
}
