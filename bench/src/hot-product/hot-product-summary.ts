// The hot-product result as JSON types, and the printed summary.

import type { MintedTokens } from "../harness/bench-identity.ts";
import { describeCpuUsage } from "../harness/cpu-meter.ts";
import { formatLatency, type LatencySummary } from "../harness/latency-summary.ts";
import { formatCount } from "../harness/progress-line.ts";
import { type ResultHead, summaryHead } from "../harness/result-head.ts";
import type { FundingResult } from "../harness/wallet-funding.ts";
import type { BenchRedisCluster } from "../redis-topology/bench-redis-cluster.ts";
import { type TopologyRate, topologyRateLines } from "../redis-topology/topology-rates.ts";
import type { HotProductInvariants, InvariantCheck } from "./hot-product-invariants.ts";
import { type HotProductMaxResult, stageVerdict } from "./hot-product-max-search.ts";
import type { SaleResult } from "./hot-product-sale.ts";
import type { OrderPaymentResult } from "./order-payment-phase.ts";

/** Issue 4's acceptance for this scenario. */
export const TARGETS = { rate: 4000, meanMs: 20, p99Ms: 50, maxRate: 8000 } as const;

/** One system's run (hot-product-run.ts): the sale and its payments, or --max. */
export interface HotProductRun {
  funding: FundingResult | null;
  /** One customer token per buyer, minted before the sales (not measured). */
  customerTokens: MintedTokens | null;
  sale: SaleResult | null;
  payment: OrderPaymentResult | null;
  invariants: HotProductInvariants | null;
  max: HotProductMaxResult | null;
}

export const emptyHotProductRun = (): HotProductRun => ({
  funding: null,
  customerTokens: null,
  sale: null,
  payment: null,
  invariants: null,
  max: null,
});

/** The run on the bench Redis at the top level; with --redis cluster, again in `floodgateCluster`. */
export interface HotProductResult extends ResultHead<"hot-product">, HotProductRun {
  settings: Record<string, unknown> & { workers: number };
  /** --redis cluster: the same run on a fresh Floodgate on a private Redis Cluster, after the first. */
  floodgateCluster: HotProductRun | null;
  /** --redis cluster: the cluster it ran on (started by the bench). */
  redisCluster: BenchRedisCluster["description"] | null;
  /** --redis cluster: both runs' rates (hot-product-topology.ts), cluster / one Redis. */
  redisTopology: TopologyRate[] | null;
}

/** "avg 3.1 ms  p50 ..." */
const latencyLine = (summary: LatencySummary | null) =>
  summary === null ? "n/a" : `avg ${summary.mean.toFixed(1)} ms  ${formatLatency(summary)}`;

const statusLine = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `${status}: ${formatCount(n)}`)
    .join(", ");

const checkLines = (checks: readonly InvariantCheck[]) =>
  checks.map((check) => `    ${check.ok ? "ok    " : "BROKEN"} ${check.name}: ${check.detail}`);

/** Whether the sale met issue 4's latency targets (only meaningful at the issue's rate). */
export function targetVerdict(sale: SaleResult): string {
  const latency = sale.latencyMs;
  if (latency === null) return "no latencies";
  const verdict = (ok: boolean) => (ok ? "met" : "NOT met");
  return `avg < ${TARGETS.meanMs} ms ${verdict(latency.mean < TARGETS.meanMs)} (${latency.mean} ms), p99 < ${TARGETS.p99Ms} ms ${verdict(latency.p99 < TARGETS.p99Ms)} (${latency.p99} ms)`;
}

function saleLines(sale: SaleResult): string[] {
  return [
    `sale: ${formatCount(sale.requests)} one-unit orders for ${formatCount(sale.stock)} units, offered at ${formatCount(sale.offeredRate)}/s over ${sale.connections} connections (${sale.slices} slices)`,
    `  orders/s ${formatCount(sale.acceptedRate)} (202s per whole second while the stock lasted: ${sale.acceptedPerSecond.map(formatCount).join(" ")}); answers ${formatCount(sale.responseRate)}/s over ${sale.durationS.toFixed(1)} s; errors ${sale.errors} (timeouts ${sale.timeouts})`,
    `  order latency ${latencyLine(sale.latencyMs)}`,
    `  ${describeCpuUsage(sale.cpu)}`,
    `  by status: ${statusLine(sale.statusCounts)}`,
    ...(sale.offeredRate === TARGETS.rate
      ? [`  issue 4 targets at ${formatCount(TARGETS.rate)}/s: ${targetVerdict(sale)}`]
      : []),
  ];
}

function paymentLines(payment: OrderPaymentResult): string[] {
  return [
    `payments: ${formatCount(payment.accepted)} of ${formatCount(payment.orders)} orders paid in ${payment.durationS.toFixed(1)} s (${formatCount(payment.acceptedRate)}/s accepted, ${payment.connections} connections, as fast as the intake answers); non-2xx ${payment.non2xx}, errors ${payment.errors}`,
    `  payment latency ${latencyLine(payment.latencyMs)}`,
    `  end-to-end (accepted -> applied) ${formatLatency(payment.delivery.endToEndMs)}${payment.allApplied ? "" : " (NOT all applied before the wait bound)"}`,
  ];
}

function maxLines(max: HotProductMaxResult): string[] {
  const best = max.maxAcceptedRate === null ? "none passed" : `${formatCount(max.maxAcceptedRate)} orders/s`;
  return [
    `--max (${max.criterion}; ${max.stageDurationS} s of stock per stage): ${best} (issue 4 asks >= ${formatCount(TARGETS.maxRate)})`,
    ...max.stages.map(
      (s, i) =>
        `  stage ${i + 1}: offered ${formatCount(s.offeredRate)}/s, ${formatCount(s.sale.stock)} units: orders/s ${formatCount(s.acceptedRate)}, avg ${s.sale.latencyMs?.mean ?? "n/a"} ms, p99 ${s.sale.latencyMs?.p99 ?? "n/a"} ms, failures ${s.sale.failures}; ${stageVerdict(s)}`,
    ),
    ...max.stages.flatMap((s, i) =>
      s.invariants.ok ? [] : [`  stage ${i + 1} invariants:`, ...checkLines(s.invariants.checks)],
    ),
  ];
}

export function summarizeHotProduct(result: HotProductResult): string[] {
  const m = result.machine;
  const lines = [
    ...summaryHead(result),
    `note: the load generator (autocannon, one thread), intake, ${result.settings.workers} workers, Redis and Postgres all share these ${m.cpuCount} cpus; figures are what this one machine sustains, not a ceiling of the design.`,
  ];
  const cluster = result.floodgateCluster;
  if (cluster === null) lines.push(...runLines(result));
  else {
    const d = result.redisCluster;
    lines.push(
      "=== on one Redis (the bench Redis)",
      ...runLines(result),
      `=== on a Redis Cluster (${d === null ? "not started" : `${d.masters} masters, ports ${d.ports.join(", ")}, no replicas, nothing persisted`}), orders in two steps`,
      ...runLines(cluster),
    );
  }
  if (result.redisTopology) lines.push(...topologyRateLines(result.redisTopology, m.cpuCount));
  if (result.error) lines.push(`ERROR: ${result.error}`);
  return lines;
}

function runLines(run: HotProductRun): string[] {
  const lines: string[] = [];
  if (run.funding) {
    const f = run.funding;
    lines.push(
      `funded ${formatCount(f.users)} buyers in ${f.seconds.toFixed(1)} s (${formatCount(f.depositRate)} deposits/s)`,
    );
  }
  if (run.customerTokens) {
    const t = run.customerTokens;
    lines.push(`minted ${formatCount(t.minted)} customer tokens in ${t.seconds.toFixed(1)} s (not measured)`);
  }
  if (run.sale) lines.push(...saleLines(run.sale));
  if (run.payment) lines.push(...paymentLines(run.payment));
  if (run.invariants) {
    lines.push(`invariants: ${run.invariants.ok ? "hold" : "BROKEN"}`, ...checkLines(run.invariants.checks));
  }
  if (run.max) lines.push(...maxLines(run.max));
  return lines;
}
