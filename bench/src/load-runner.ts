// One load run on autocannon with the bench's bookkeeping: every response time (exact percentiles), status
// counts, and a progress line. autocannon runs on this process's event loop: the load generator is one
// thread on the same machine as the system under test.
//
// Pacing: autocannon's overallRate gives each connection a quota per second, which the connection spends
// back-to-back as soon as the second starts; all connections of an instance start together, so 2,000/s
// over 100 connections arrives as one burst at concurrency 100 each second. To offer the rate evenly, a
// rated run is split into `slices` autocannon instances started 1/slices s apart, each with its share of
// the rate and connections. slices = 1 is plain autocannon.
import autocannon, { type Request, type Result } from "autocannon";
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
  /** Seconds each slice ran (mean over slices). */
  durationS: number;
  /** Response times in ms, every response. */
  latencies: number[];
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
}

/** Splits `total` into `parts` integers that differ by at most one. */
export function shares(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0));
}

export async function runLoad(spec: LoadSpec): Promise<LoadOutcome> {
  const rated = spec.rate !== null;
  const sliceCount = rated ? Math.max(1, Math.min(spec.slices ?? 1, spec.connections, spec.rate ?? 1)) : 1;
  const rates = rated ? shares(spec.rate ?? 0, sliceCount) : [null];
  const connections = shares(spec.connections, sliceCount);
  const latencies: number[] = [];
  const statusCounts: Record<string, number> = {};
  let ok = 0;
  const startedAt = Date.now();
  let previous = { at: startedAt, responses: 0 };
  const stopProgress = startProgress(() => {
    const now = Date.now();
    const recent = ((latencies.length - previous.responses) * 1000) / Math.max(1, now - previous.at);
    previous = { at: now, responses: latencies.length };
    const bound = spec.amount !== undefined ? `${formatCount(spec.amount)} requests` : `${spec.durationS} s`;
    return `${spec.label}: ${Math.round((now - startedAt) / 1000)} s (of ${bound}), ${formatCount(latencies.length)} responses (${formatCount(recent)}/s), ${formatCount(ok)} 2xx, ${formatCount(latencies.length - ok)} other`;
  });
  const runSlice = async (index: number): Promise<Result> => {
    await new Promise((resolve) => setTimeout(resolve, (index * 1000) / sliceCount));
    const rate = rates[index] ?? null;
    // autocannon refuses more connections than requests.
    const sliceConnections = Math.max(
      1,
      Math.min(connections[index] ?? 1, spec.amount ?? Number.POSITIVE_INFINITY),
    );
    const instance = autocannon({
      url: spec.url,
      connections: sliceConnections,
      ...(spec.amount !== undefined ? { amount: spec.amount } : { duration: spec.durationS ?? 10 }),
      ...(rate === null ? {} : { overallRate: rate }),
      pipelining: 1,
      timeout: 10,
      requests: [spec.request],
    });
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      latencies.push(responseTime);
      statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1;
      if (statusCode >= 200 && statusCode < 300) ok++;
    });
    return await instance;
  };
  try {
    const results = await Promise.all(Array.from({ length: sliceCount }, (_, i) => runSlice(i)));
    const sum = (pick: (result: Result) => number) =>
      results.reduce((total, result) => total + pick(result), 0);
    return {
      durationS: Math.round((sum((r) => r.duration) / results.length) * 100) / 100,
      latencies,
      responses: latencies.length,
      ok,
      non2xx: latencies.length - ok,
      errors: sum((r) => r.errors),
      timeouts: sum((r) => r.timeouts),
      statusCounts,
      slices: sliceCount,
      startedAt,
      finishedAt: Date.now(),
    };
  } finally {
    stopProgress();
  }
}
