// One closed-loop wrk run of POST /v1/payments (wrk-payments.lua): ONE thread, `connections` connections each
// sending its next request as soon as the last is answered, for `durationS` seconds. wrk is a child process,
// far lighter than autocannon in the bench's own event loop; the script reports what it saw as one JSON line.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

export const WRK_SCRIPT = fileURLToPath(new URL("./wrk-payments.lua", import.meta.url));

/** What wrk-payments.lua's done() prints after "wrk-result ". */
export interface WrkReport {
  requests: number;
  durationUs: number;
  /** Answers by HTTP status, e.g. { "202": 98000 }. */
  statuses: Record<string, number>;
  errors: { connect: number; read: number; write: number; timeout: number };
  latencyUs: { p50: number; p90: number; p99: number; max: number };
  /** wrk's own cpu seconds (user + system, all its threads). */
  cpuS: number;
}

export interface WrkRunSpec {
  wrk: string;
  url: string;
  connections: number;
  durationS: number;
  /** Idempotency-Key prefix, unique per run against one target. */
  keyPrefix: string;
  users: number;
  /** File of customer tokens, line i+1 for bench-user-i (auth on); null sends none. */
  tokensFile: string | null;
}

/** wrk's command line for `spec` (exported for the tests). */
export function wrkArguments(spec: Omit<WrkRunSpec, "wrk">): string[] {
  return [
    "--threads",
    "1",
    "--connections",
    String(spec.connections),
    "--duration",
    `${spec.durationS}s`,
    // A saturated target answers within a second or two; past 5 s the request is counted as an error.
    "--timeout",
    "5s",
    "--script",
    WRK_SCRIPT,
    spec.url,
    "--",
    spec.keyPrefix,
    String(spec.users),
    spec.tokensFile ?? "",
  ];
}

export function parseWrkReport(stdout: string): WrkReport {
  const line = stdout.split("\n").find((candidate) => candidate.startsWith("wrk-result "));
  if (line === undefined) throw new Error(`wrk printed no wrk-result line:\n${stdout.slice(-1000)}`);
  return JSON.parse(line.slice("wrk-result ".length)) as WrkReport;
}

/** Runs wrk to the end and reads its report. */
export async function runWrk(spec: WrkRunSpec): Promise<WrkReport> {
  const { wrk, ...rest } = spec;
  const { stdout } = await run(wrk, wrkArguments(rest), {
    encoding: "utf8",
    timeout: (spec.durationS + 60) * 1000,
    maxBuffer: 1 << 20,
  });
  return parseWrkReport(stdout);
}

/** Answers that were not 202 Accepted, by status; empty when every answer was a 202. */
export function unexpectedStatuses(report: WrkReport): Record<string, number> {
  return Object.fromEntries(Object.entries(report.statuses).filter(([status]) => status !== "202"));
}
