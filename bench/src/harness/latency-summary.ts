// Percentiles over raw samples. The bench keeps every sample (a run is at most a few hundred thousand
// requests), so the figures are exact rather than read off a pre-bucketed histogram.

export interface LatencySummary {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** Linear interpolation between closest ranks, like Postgres percentile_cont; `sorted` must be ascending. */
export function percentile(sorted: ArrayLike<number>, fraction: number): number {
  if (!(fraction >= 0 && fraction <= 1))
    throw new RangeError(`percentile fraction must be in [0, 1], got ${fraction}`);
  if (sorted.length === 0) return Number.NaN;
  const rank = fraction * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const a = sorted[low]!;
  const b = sorted[high]!;
  return a + (b - a) * (rank - low);
}

/** Summary in the samples' unit, rounded to 0.01; null when there are no samples. */
export function summarizeLatencies(samples: ArrayLike<number>): LatencySummary | null {
  if (samples.length === 0) return null;
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  const round = (value: number) => Math.round(value * 100) / 100;
  return {
    count: sorted.length,
    min: round(sorted[0]!),
    mean: round(sum / sorted.length),
    p50: round(percentile(sorted, 0.5)),
    p95: round(percentile(sorted, 0.95)),
    p99: round(percentile(sorted, 0.99)),
    max: round(sorted[sorted.length - 1]!),
  };
}

/** "p50 1.2 ms  p95 3.4 ms  p99 8.9 ms", or "n/a" without samples; switches to seconds above 10 s. */
export function formatLatency(summary: LatencySummary | null): string {
  if (summary === null) return "n/a";
  const unit = (ms: number) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(1)} ms`);
  return `p50 ${unit(summary.p50)}  p95 ${unit(summary.p95)}  p99 ${unit(summary.p99)}  max ${unit(summary.max)}`;
}
