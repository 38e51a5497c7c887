// The overload burst's arithmetic, pure so it is tested: open-loop arrivals (due by the clock, whatever was
// answered), where each arrival goes, and the latency percentiles of a histogram of whole milliseconds.

/** Arrivals due `elapsedMs` into a step offered at `rate` per second. */
export const arrivalsDue = (elapsedMs: number, rate: number): number => Math.floor((elapsedMs * rate) / 1000);

/** Connection and user of the `index`-th arrival: round robin over both, so every connection carries the same
 * load and every user pays at rate / users (under its per-user limit when there are enough of them). */
export const arrivalSlot = (
  index: number,
  connections: number,
  users: number,
): { connection: number; user: number } => ({ connection: index % connections, user: index % users });

/** The `share` (0..1) percentile of a histogram whose bucket i counts latencies in [i, i + 1) ms; null if
 * empty. */
export function histogramPercentile(buckets: ArrayLike<number>, share: number): number | null {
  let total = 0;
  for (let i = 0; i < buckets.length; i++) total += buckets[i]!;
  if (total === 0) return null;
  const rank = Math.ceil(share * total);
  let seen = 0;
  for (let i = 0; i < buckets.length; i++) {
    seen += buckets[i]!;
    if (seen >= rank) return i + 1;
  }
  return buckets.length;
}
