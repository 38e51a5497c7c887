// One load run on autocannon with the bench's bookkeeping: every response time (exact percentiles), status
// counts, and a progress line. autocannon runs on this process's event loop: the load generator is one
// thread on the same machine as the system under test.
//
// Pacing: autocannon's overallRate gives each connection a quota per second, which the connection spends
// back-to-back as soon as the second starts; all connections of an instance start together, so 2,000/s
// over 100 connections arrives as one burst at concurrency 100 each second. To offer the rate evenly, a
// rated run is split into `slices` autocannon instances started 1/slices s apart, each with its share of
// the rate, connections and (for an `amount` run) requests. slices = 1 is plain autocannon.
import autocannon, { type Request, type Result } from "autocannon";
import { type LoopLateness, startLoopLateness } from "./loop-lateness.ts";
import { formatCount, startProgress } from "./progress-line.ts";

export interface LoadSpec {
  label: string;
  url: string;
  connections: number;
  /** Requests/s across all connections (autocannon's overallRate); null runs as fast as the target answers. */
  rate: number | null;
  /** Staggered autocannon instances sharing a rated run (see above); ignored without a rate. */
  slices?: number;
  /** Exactly one of durationS (seconds) or amount (total requests) bounds the run. */
  durationS?: number;
  amount?: number;
  request: Request;
}

export interface LoadOutcome {
  /** Seconds each slice ran (mean over slices), as autocannon counts them: an `amount` run ends at its next
   * one-second check, so this can be up to a second long. */
  durationS: number;
  /** Seconds from each slice's start to its last response (mean over slices): the time the load ran. */
  activeS: number;
  /** 2xx responses in each whole second since `startedAt` (see steadyRate). */
  okPerSecond: number[];
  /** Response times in ms, every response, in the order they arrived. */
  latencies: number[];
  /** Index in `latencies` of each whole second's first response since `startedAt` (per-second-series.ts). */
  secondStarts: number[];
  responses: number;
  ok: number;
  non2xx: number;
  /** Socket errors and timeouts (a request without a response). */
  errors: number;
  timeouts: number;
  statusCounts: Record<string, number>;
  slices: number;
  startedAt: number;
  finishedAt: number;
  /** How late the generator's event loop ran during the run (loop-lateness.ts); response times are read on it. */
  loopDelayMs: LoopLateness;
}

/** How a result describes this generator: a rated run's slices, or unrated. */
export const describeLoadGenerator = (slices: number | null): string =>
  slices === null
    ? "autocannon 8, one thread in the bench process, unrated (as fast as the intake answers)"
    : `autocannon 8, one thread in the bench process, ${slices} staggered instance(s) per rated run, on the same machine as everything it measures`;

/** Splits `total` into `parts` integers that differ by at most one. */
export function shares(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0));
}

/**
 * The 2xx rate a run sustained: the mean of `okPerSecond` over its whole seconds, leaving out the first
 * (slices still starting) and the last with any 2xx (the load, or the stock, ran out during it). A rated
 * connection spends its quota at the start of each second, so a count divided by the time to the last
 * response overstates the rate by up to a second's worth; whole seconds do not. Null under 3 seconds.
 */
export function steadyRate(okPerSecond: readonly number[]): number | null {
  let last = okPerSecond.length - 1;
  while (last >= 0 && (okPerSecond[last] ?? 0) === 0) last--;
  const inner = okPerSecond.slice(1, Math.max(1, last));
  if (inner.length === 0) return null;
  return Math.round((inner.reduce((sum, n) => sum + n, 0) / inner.length) * 10) / 10;
}

export async function runLoad(spec: LoadSpec): Promise<LoadOutcome> {
  const rated = spec.rate !== null;
  const sliceCount = rated
    ? Math.max(1, Math.min(spec.slices ?? 1, spec.connections, spec.rate ?? 1, spec.amount ?? Infinity))
    : 1;
  const rates = rated ? shares(spec.rate ?? 0, sliceCount) : [null];
  const connections = shares(spec.connections, sliceCount);
  // A rated `amount` run is shared like the rate, so the slices end together.
  const amounts = spec.amount === undefined ? [] : shares(spec.amount, sliceCount);
  const latencies: number[] = [];
  const statusCounts: Record<string, number> = {};
  const okPerSecond: number[] = [];
  const secondStarts: number[] = [];
  let ok = 0;
  const startedAt = Date.now();
  const loopLateness = startLoopLateness();
  let previous = { at: startedAt, responses: 0 };
  const stopProgress = startProgress(() => {
    const now = Date.now();
    const recent = ((latencies.length - previous.responses) * 1000) / Math.max(1, now - previous.at);
    previous = { at: now, responses: latencies.length };
    const bound = spec.amount !== undefined ? `${formatCount(spec.amount)} requests` : `${spec.durationS} s`;
    return `${spec.label}: ${Math.round((now - startedAt) / 1000)} s (of ${bound}), ${formatCount(latencies.length)} responses (${formatCount(recent)}/s), ${formatCount(ok)} 2xx, ${formatCount(latencies.length - ok)} other`;
  });
  const runSlice = async (index: number): Promise<{ result: Result; activeMs: number }> => {
    await new Promise((resolve) => setTimeout(resolve, (index * 1000) / sliceCount));
    const rate = rates[index] ?? null;
    const amount = amounts[index];
    // autocannon refuses more connections than requests.
    const sliceConnections = Math.max(
      1,
      Math.min(connections[index] ?? 1, amount ?? Number.POSITIVE_INFINITY),
    );
    const sliceStart = Date.now();
    let lastResponse = sliceStart;
    const instance = autocannon({
      url: spec.url,
      connections: sliceConnections,
      ...(amount !== undefined ? { amount } : { duration: spec.durationS ?? 10 }),
      ...(rate === null ? {} : { overallRate: rate }),
      pipelining: 1,
      timeout: 10,
      requests: [spec.request],
    });
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      lastResponse = Date.now();
      const second = Math.floor((lastResponse - startedAt) / 1000);
      // Responses arrive in time order, so a second's response times are one run of `latencies`.
      while (secondStarts.length <= second) secondStarts.push(latencies.length);
      latencies.push(responseTime);
      statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1;
      if (statusCode >= 200 && statusCode < 300) {
        ok++;
        okPerSecond[second] = (okPerSecond[second] ?? 0) + 1;
      }
    });
    return { result: await instance, activeMs: lastResponse - sliceStart };
  };
  try {
    const slices = await Promise.all(Array.from({ length: sliceCount }, (_, i) => runSlice(i)));
    const results = slices.map((slice) => slice.result);
    const sum = (pick: (result: Result) => number) =>
      results.reduce((total, result) => total + pick(result), 0);
    return {
      durationS: Math.round((sum((r) => r.duration) / results.length) * 100) / 100,
      activeS:
        Math.round(slices.reduce((total, slice) => total + slice.activeMs, 0) / slices.length / 10) / 100,
      okPerSecond: Array.from(okPerSecond, (n) => n ?? 0),
      latencies,
      secondStarts,
      responses: latencies.length,
      ok,
      non2xx: latencies.length - ok,
      errors: sum((r) => r.errors),
      timeouts: sum((r) => r.timeouts),
      statusCounts,
      slices: sliceCount,
      startedAt,
      finishedAt: Date.now(),
      loopDelayMs: loopLateness.stop(),
    };
  } finally {
    loopLateness.stop(); // disables the sampling timer if the run failed (a second stop changes nothing)
    stopProgress();
  }
}
