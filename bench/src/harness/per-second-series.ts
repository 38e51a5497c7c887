// A load's figures second by second, for the result and its chart (charts/layouts/second-panels.ts): the 2xx,
// every answer, and p50/p99 of that second's response times. From what the load runner already keeps (every
// response time in arrival order, and where each second starts), so the run pays nothing more for it.
import { percentile } from "./latency-summary.ts";
import type { LoadOutcome } from "./load-runner.ts";

export interface PerSecondSeries {
  /** 2xx answers in each whole second since the load started. */
  accepted: number[];
  /** Every answer in each second. */
  responses: number[];
  /** Of that second's answers; null for a second without any. */
  p50Ms: (number | null)[];
  p99Ms: (number | null)[];
}

const round = (value: number): number => Math.round(value * 100) / 100;

export function perSecondSeries(
  load: Pick<LoadOutcome, "okPerSecond" | "latencies" | "secondStarts">,
): PerSecondSeries {
  const seconds = Math.max(load.secondStarts.length, load.okPerSecond.length);
  const series: PerSecondSeries = { accepted: [], responses: [], p50Ms: [], p99Ms: [] };
  for (let second = 0; second < seconds; second++) {
    const from = load.secondStarts[second] ?? load.latencies.length;
    const to = load.secondStarts[second + 1] ?? load.latencies.length;
    const sorted = Float64Array.from(load.latencies.slice(from, to)).sort();
    series.accepted.push(load.okPerSecond[second] ?? 0);
    series.responses.push(to - from);
    series.p50Ms.push(sorted.length === 0 ? null : round(percentile(sorted, 0.5)));
    series.p99Ms.push(sorted.length === 0 ? null : round(percentile(sorted, 0.99)));
  }
  return series;
}
