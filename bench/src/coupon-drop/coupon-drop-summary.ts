// The coupon-drop result as JSON types, its invariants, and the printed summary.

import type { MintedTokens } from "../harness/bench-identity.ts";
import { type CpuUsage, describeCpuUsage } from "../harness/cpu-meter.ts";
import { formatLatency, type LatencySummary } from "../harness/latency-summary.ts";
import type { PerSecondSeries } from "../harness/per-second-series.ts";
import { formatCount } from "../harness/progress-line.ts";
import { type ResultHead, summaryHead } from "../harness/result-head.ts";
import type { BenchRedisCluster } from "../redis-topology/bench-redis-cluster.ts";
import {
  compareTopologyRate,
  type TopologyRate,
  topologyRateLines,
} from "../redis-topology/topology-rates.ts";

export interface DropLoad {
  requests: number;
  connections: number;
  durationS: number;
  /** Responses per second over the run. */
  rate: number;
  latencyMs: LatencySummary | null;
  /** Answers (most of them 409/410) and p50/p99 second by second, for the result's chart; absent from older
   * results. */
  perSecond?: PerSecondSeries;
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

/** One system's drop (coupon-drop-run.ts). */
export interface DropRun {
  couponId: string | null;
  /** One customer token per user (and warm-up user), minted before the drop (not measured). */
  customerTokens: MintedTokens | null;
  load: DropLoad | null;
  invariants: DropInvariants | null;
}

export const emptyDropRun = (): DropRun => ({
  couponId: null,
  customerTokens: null,
  load: null,
  invariants: null,
});

/** The drop on the bench Redis at the top level; with --redis cluster, again in `floodgateCluster`. */
export interface CouponDropResult extends ResultHead<"coupon-drop">, DropRun {
  /** --redis cluster: the same drop on a fresh Floodgate on a private Redis Cluster, after the first. */
  floodgateCluster: DropRun | null;
  /** --redis cluster: the cluster it ran on (started by the bench). */
  redisCluster: BenchRedisCluster["description"] | null;
  /** --redis cluster: the response rates (and intake p99s) of both drops, cluster / one Redis. */
  redisTopology: TopologyRate[] | null;
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

/** Names the error when a drop's invariants do not hold: `where` is the result field holding them. */
export function dropError(run: DropRun, where: string): string | null {
  return run.invariants !== null && !run.invariants.ok
    ? `the coupon invariants do not hold (see ${where})`
    : null;
}

/** The drops' response rates and intake p99s, one Redis and the cluster. */
export const compareDrops = (single: DropRun, cluster: DropRun): TopologyRate[] => [
  compareTopologyRate(
    "drop",
    "responses/s",
    { rate: single.load?.rate ?? null, p99Ms: single.load?.latencyMs?.p99 ?? null },
    { rate: cluster.load?.rate ?? null, p99Ms: cluster.load?.latencyMs?.p99 ?? null },
  ),
];

export function summarizeCouponDrop(result: CouponDropResult): string[] {
  const m = result.machine;
  const lines = summaryHead(result);
  lines.push(
    `note: the load generator (autocannon, one thread), intake, workers, Redis and Postgres share these ${m.cpuCount} cpus.`,
  );
  const cluster = result.floodgateCluster;
  if (cluster === null) lines.push(...dropLines(result));
  else {
    lines.push("on one Redis (the bench Redis):", ...dropLines(result));
    lines.push(`on ${clusterName(result.redisCluster)}, issues in two steps:`, ...dropLines(cluster));
  }
  if (result.redisTopology) lines.push(...topologyRateLines(result.redisTopology, m.cpuCount));
  if (result.error) lines.push(`ERROR: ${result.error}`);
  return lines;
}

const clusterName = (cluster: BenchRedisCluster["description"] | null) =>
  cluster === null
    ? "a Redis Cluster (not started)"
    : `a Redis Cluster (${cluster.masters} masters, ports ${cluster.ports.join(", ")}, no replicas, nothing persisted)`;

function dropLines(result: DropRun): string[] {
  const lines: string[] = [];
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
  return lines;
}
