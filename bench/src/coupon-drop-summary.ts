// The coupon-drop result as JSON types, its invariants, and the printed summary.

import type { MintedTokens } from "./bench-identity.ts";
import { type CpuUsage, describeCpuUsage } from "./cpu-meter.ts";
import { formatLatency, type LatencySummary } from "./latency-summary.ts";
import { formatCount } from "./progress-line.ts";
import type { CommitInfo, machineInfo } from "./result-file.ts";
import type { ServiceSettings } from "./service-settings.ts";
import { busyWarning, headerLine } from "./summary-lines.ts";

export interface DropLoad {
  requests: number;
  connections: number;
  durationS: number;
  /** Responses per second over the run. */
  rate: number;
  latencyMs: LatencySummary | null;
  /** Where the cpu went while the requests ran (null where /proc is not there). */
  cpu: CpuUsage | null;
  statusCounts: Record<string, number>;
  errors: number;
  timeouts: number;
}

export interface DropInvariants {
  quantity: number;
  accepted: number;
  acceptedUsers: number;
  conflicts: number;
  expectedConflicts: number;
  soldOut: number;
  expectedSoldOut: number;
  redisIssued: number | null;
  rows: number;
  rowUsers: number;
  /** Accepted ids without a row; rows no 202 confirmed. (Rows on their user's shard: the worker tests.) */
  missingRows: number;
  unconfirmedRows: number;
  drained: boolean;
  drainWaitMs: number;
  ok: boolean;
}

export interface CouponDropResult extends CommitInfo {
  scenario: "coupon-drop";
  startedAt: string;
  finishedAt: string | null;
  machine: ReturnType<typeof machineInfo>;
  services: ServiceSettings | null;
  settings: Record<string, unknown>;
  loadGenerator: string;
  couponId: string | null;
  /** One customer token per user (and warm-up user), minted before the drop (not measured). */
  customerTokens: MintedTokens | null;
  load: DropLoad | null;
  invariants: DropInvariants | null;
  error: string | null;
}

/**
 * `responses`: answered requests; `winnerAttempts`: answered requests of the users who got a coupon. Each
 * winner's other attempts must be 409s and every attempt of everyone else a 410.
 */
export function checkInvariants(
  values: Omit<DropInvariants, "ok" | "expectedConflicts" | "expectedSoldOut">,
  counts: { responses: number; winnerAttempts: number },
): DropInvariants {
  const expectedConflicts = counts.winnerAttempts - values.accepted;
  const expectedSoldOut = counts.responses - counts.winnerAttempts;
  const ok =
    values.conflicts === expectedConflicts &&
    values.soldOut === expectedSoldOut &&
    values.accepted === values.quantity &&
    values.acceptedUsers === values.quantity &&
    values.rows === values.quantity &&
    values.rowUsers === values.quantity &&
    values.redisIssued === values.quantity &&
    values.missingRows === 0 &&
    values.unconfirmedRows === 0 &&
    values.drained;
  return { ...values, expectedConflicts, expectedSoldOut, ok };
}

export function summarizeCouponDrop(result: CouponDropResult): string[] {
  const m = result.machine;
  const lines = [headerLine("coupon-drop", result), ...busyWarning(m.loadAverageAtStart[0] ?? 0)];
  lines.push(
    `note: the load generator (autocannon, one thread), intake, workers, Redis and Postgres share these ${m.cpuCount} cpus.`,
  );
  if (result.customerTokens) {
    const t = result.customerTokens;
    lines.push(
      `  minted ${formatCount(t.minted)} customer tokens in ${t.seconds.toFixed(1)} s (not measured); each request carries its user's`,
    );
  }
  const load = result.load;
  if (load) {
    const counts = Object.entries(load.statusCounts)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([status, n]) => `${status}: ${formatCount(n)}`)
      .join(", ");
    lines.push(
      `  ${formatCount(load.requests)} requests over ${load.connections} connections in ${load.durationS.toFixed(1)} s: ${formatCount(load.rate)} responses/s, errors ${load.errors} (timeouts ${load.timeouts})`,
      `  intake latency ${formatLatency(load.latencyMs)}`,
      `  ${describeCpuUsage(load.cpu)}`,
      `  by status: ${counts}`,
    );
  }
  const inv = result.invariants;
  if (inv) {
    lines.push(
      `  issued ${formatCount(inv.accepted)} of ${formatCount(inv.quantity)} to ${formatCount(inv.acceptedUsers)} users; 409 ${formatCount(inv.conflicts)} (expected ${formatCount(inv.expectedConflicts)}), 410 ${formatCount(inv.soldOut)} (expected ${formatCount(inv.expectedSoldOut)})`,
      `  after drain (${inv.drained ? `${(inv.drainWaitMs / 1000).toFixed(1)} s after the last response` : "NOT drained before the wait bound"}): rows ${formatCount(inv.rows)} for ${formatCount(inv.rowUsers)} users, Redis issued ${inv.redisIssued ?? "n/a"}, missing ${inv.missingRows}, unconfirmed ${inv.unconfirmedRows}`,
      `  invariants: ${inv.ok ? "hold" : "BROKEN"}`,
    );
  }
  if (result.error) lines.push(`ERROR: ${result.error}`);
  return lines;
}
