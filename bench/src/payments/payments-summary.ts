// The payments result as JSON types, the Floodgate/baseline comparison, and the printed summary.

import { budgetLine, type IntakeBudget } from "../audits/intake-budget.ts";
import { describeCpuUsage } from "../harness/cpu-meter.ts";
import { formatLatency } from "../harness/latency-summary.ts";
import { formatCount } from "../harness/progress-line.ts";
import { type ResultHead, summaryHead } from "../harness/result-head.ts";
import type { FundingResult } from "../harness/wallet-funding.ts";
import { redisMemoryLine } from "../redis-footprint/memory-per-payment.ts";
import { redisCpuLine } from "../redis-footprint/redis-cpu-per-payment.ts";
import type { BenchRedisCluster } from "../redis-topology/bench-redis-cluster.ts";
import { type RedisTopologyCost, redisTopologyLines } from "../redis-topology/redis-topology-cost.ts";
import { type ReplicaWaitCost, replicaWaitLines } from "../redis-topology/replica-wait-cost.ts";
import { type AuthCost, authCostLines } from "./auth-cost.ts";
import type { DrainResult } from "./drain-phase.ts";
import type { MaxRateResult } from "./max-rate-search.ts";
import type { RatePhaseResult } from "./rate-phase.ts";
import { type SustainedResult, sustainedLines } from "./sustained-search.ts";

export interface TargetPhases {
  funding?: FundingResult;
  /** Unmeasured: both targets take it before their measured phases (payments-scenario.ts). */
  warmUp?: RatePhaseResult;
  rate?: RatePhaseResult;
  max?: MaxRateResult;
  /** --sustained: the highest rate held with every payment applied and consumer lag < 1 s (Floodgate alone). */
  sustained?: SustainedResult;
  drain?: DrainResult;
  /** Floodgate: Redis commands per accepted payment and intake Postgres queries, after the measured phases. */
  intakeBudget?: IntakeBudget;
  /** Customer tokens minted before the load (auth on): count and seconds (setup, not measured). */
  customerTokens?: { minted: number; seconds: number };
}

export interface Comparison {
  /** Floodgate accepted rate / baseline accepted rate, fixed-rate run. */
  acceptedRateRatio: number | null;
  /** Baseline intake p99 / Floodgate intake p99: how many times faster Floodgate answers. */
  intakeP99Speedup: number | null;
  /** Floodgate max / baseline max, --max. */
  maxRateRatio: number | null;
}

export interface PaymentsResult extends ResultHead<"payments"> {
  /** The run with the `--auth` setting (on unless --auth off; with --auth compare, on). */
  floodgate: TargetPhases;
  /** --auth compare: the same measured phases on a second system with AUTH=off, running beside the first. */
  floodgateAuthOff: TargetPhases | null;
  /** --auth compare: auth on against AUTH=off. */
  authCost: AuthCost | null;
  /** --redis cluster: the same measured phases on a second system on a private Redis Cluster, beside the first. */
  floodgateCluster: TargetPhases | null;
  /** --redis cluster: the cluster it ran on (started by the bench). */
  redisCluster: BenchRedisCluster["description"] | null;
  /** --redis cluster: one Redis against the cluster. */
  redisTopology: RedisTopologyCost | null;
  /** --redis cluster-wait: `floodgate` without and `floodgateCluster` with REDIS_WAIT_REPLICAS=1, one cluster. */
  replicaWait: ReplicaWaitCost | null;
  baseline: TargetPhases | null;
  comparison: Comparison | null;
}

const ratio = (a: number | null | undefined, b: number | null | undefined): number | null =>
  a == null || b == null || b === 0 ? null : Math.round((a / b) * 100) / 100;

export function comparePhases(floodgate: TargetPhases, baseline: TargetPhases): Comparison {
  return {
    acceptedRateRatio: ratio(floodgate.rate?.acceptedRate, baseline.rate?.acceptedRate),
    intakeP99Speedup: ratio(baseline.rate?.intakeLatencyMs?.p99, floodgate.rate?.intakeLatencyMs?.p99),
    maxRateRatio: ratio(floodgate.max?.maxAcceptedRate, baseline.max?.maxAcceptedRate),
  };
}

function rateLines(phase: RatePhaseResult): string[] {
  const { audit } = phase;
  const asynchronous = phase.target === "floodgate";
  const lines = [
    `  offered ${formatCount(phase.offeredRate)}/s for ${phase.durationS} s over ${phase.connections} connections (${phase.slices} slice${phase.slices === 1 ? "" : "s"}): accepted ${formatCount(phase.accepted)} (${formatCount(phase.acceptedRate)}/s), non-2xx ${phase.non2xx}, errors ${phase.errors} (timeouts ${phase.timeouts})`,
    `  intake latency      ${formatLatency(phase.intakeLatencyMs)}`,
    `  ${describeCpuUsage(phase.cpu)}`,
  ];
  if (asynchronous) {
    lines.push(`  end-to-end latency  ${formatLatency(audit.endToEndMs)}  (completed_at - created_at)`);
    const wait = audit.lastAcceptToLastAppliedMs;
    lines.push(
      `  last 202 -> last payment applied: ${wait === null ? "n/a" : wait < 10_000 ? `${wait} ms` : `${(wait / 1000).toFixed(1)} s`}${phase.allApplied ? "" : " (NOT all applied before the wait bound)"}`,
    );
  }
  lines.push(
    `  rows ${formatCount(audit.rows)} for ${formatCount(audit.accepted)} accepted; exactly once: ${audit.exactlyOnce ? "yes" : "NO"} (missing ${audit.missing}, duplicated ${audit.duplicated}, unconfirmed ${audit.unconfirmedRows}); succeeded ${formatCount(audit.succeeded)}, failed ${formatCount(audit.failed)}`,
  );
  if (phase.redisCpu) lines.push(`  ${redisCpuLine(phase.redisCpu)}`);
  if (phase.redisMemory) lines.push(`  ${redisMemoryLine(phase.redisMemory)}`);
  return lines;
}

function maxLines(max: MaxRateResult): string[] {
  const best = max.maxAcceptedRate === null ? "none passed" : `${formatCount(max.maxAcceptedRate)}/s`;
  return [
    `  max accepted rate with ${max.criterion}: ${best}`,
    ...max.stages.flatMap((s, i) => [
      `    stage ${i + 1}: offered ${formatCount(s.offeredRate)}/s accepted ${formatCount(s.acceptedRate)}/s intake p50 ${s.p50Ms ?? "n/a"} ms p99 ${s.p99Ms ?? "n/a"} ms, e2e p99 ${s.endToEndP99Ms ?? "n/a"} ms, failures ${s.failures}, exactly once ${s.exactlyOnce ? "yes" : `NO (missing ${s.missing}, duplicated ${s.duplicated})`}: ${s.passed ? "pass" : "fail"}${s.ranFirst === undefined ? "" : s.ranFirst ? " (ran first of its pair)" : " (ran second of its pair)"}`,
      `      ${describeCpuUsage(s.cpu ?? null)}${s.redisKeys ? `; Redis keys ${formatCount(s.redisKeys.atStart)} -> ${formatCount(s.redisKeys.atEnd)}` : ""}${s.rerunOf ? `; second run: the first failed (accepted ${formatCount(s.rerunOf.acceptedRate)}/s, p99 ${s.rerunOf.p99Ms ?? "n/a"} ms) while Redis' key table passed ${formatCount(s.rerunOf.keyTableSize)} keys` : ""}`,
    ]),
  ];
}

function drainLines(drain: DrainResult): string[] {
  const memory = drain.redisMemory ? [`  ${redisMemoryLine(drain.redisMemory)}`] : [];
  return [
    `  queued ${formatCount(drain.accepted)} of ${formatCount(drain.requested)} with no worker (${formatCount(drain.queueRate)}/s, non-2xx ${drain.non2xx}, errors ${drain.errors})`,
    `  drained in ${drain.drainSeconds.toFixed(1)} s from spawn (${formatCount(drain.drainRate)}/s; startup ${(drain.startupMs / 1000).toFixed(1)} s; workers alone ${drain.workerRate === null ? "n/a" : formatCount(drain.workerRate)}/s)${drain.allApplied ? "" : " (NOT all applied before the wait bound)"}`,
    `  exactly once: ${drain.audit.exactlyOnce ? "yes" : "NO"} (missing ${drain.audit.missing}, duplicated ${drain.audit.duplicated})`,
    ...memory,
  ];
}

function targetLines(name: string, phases: TargetPhases): string[] {
  const lines: string[] = [];
  if (phases.funding) {
    const f = phases.funding;
    lines.push(
      `${name}: funded ${formatCount(f.users)} wallets in ${f.seconds.toFixed(1)} s (${formatCount(f.depositRate)} deposits/s, ${f.passes} pass(es))`,
    );
  }
  if (phases.customerTokens) {
    const t = phases.customerTokens;
    lines.push(
      `${name}: minted ${formatCount(t.minted)} customer tokens in ${t.seconds.toFixed(1)} s through POST /v1/customer-sessions (not measured)`,
    );
  }
  if (phases.warmUp) {
    const w = phases.warmUp;
    lines.push(
      `${name}: warmed up with ${formatCount(w.accepted)} payments at ${formatCount(w.offeredRate)}/s for ${w.durationS} s (not measured)`,
    );
  }
  if (phases.rate) lines.push(`${name}, fixed rate:`, ...rateLines(phases.rate));
  if (phases.max) lines.push(`${name}, --max:`, ...maxLines(phases.max));
  if (phases.sustained) lines.push(`${name}, --sustained:`, ...sustainedLines(phases.sustained));
  if (phases.drain) lines.push(`${name}, --drain:`, ...drainLines(phases.drain));
  if (phases.intakeBudget) lines.push(budgetLine(name, phases.intakeBudget));
  return lines;
}

export function summarizePayments(result: PaymentsResult): string[] {
  const m = result.machine;
  const settings = result.settings as { workers: number; auth: string; redis?: string };
  const waitMode = settings.redis === "cluster-wait";
  const lines = [
    ...summaryHead(result),
    `note: the load generator (${result.loadGenerator.split(",")[0]}, one thread), intake, ${settings.workers} workers, Redis and Postgres all share these ${m.cpuCount} cpus; figures are what this one machine sustains, not a ceiling of the design.`,
    ...targetLines(
      waitMode
        ? "floodgate (Redis Cluster with replicas, REDIS_WAIT_REPLICAS=0)"
        : `floodgate (auth ${settings.auth === "off" ? "off" : "on"})`,
      result.floodgate,
    ),
  ];
  if (result.floodgateAuthOff) lines.push(...targetLines("floodgate (AUTH=off)", result.floodgateAuthOff));
  if (result.authCost) lines.push(...authCostLines(result.authCost));
  if (result.floodgateCluster)
    lines.push(
      ...targetLines(
        waitMode
          ? "floodgate (Redis Cluster with replicas, REDIS_WAIT_REPLICAS=1)"
          : "floodgate (Redis Cluster, 3 masters)",
        result.floodgateCluster,
      ),
    );
  if (result.redisTopology) lines.push(...redisTopologyLines(result.redisTopology));
  if (result.replicaWait) lines.push(...replicaWaitLines(result.replicaWait));
  if (result.baseline) lines.push(...targetLines("baseline (synchronous, pg pool of 10)", result.baseline));
  const c = result.comparison;
  if (c) {
    if (c.acceptedRateRatio !== null || c.intakeP99Speedup !== null) {
      lines.push(
        `floodgate/baseline: accepted rate x${c.acceptedRateRatio ?? "n/a"}, intake p99 ${c.intakeP99Speedup ?? "n/a"} times lower`,
      );
    }
    if (result.floodgate.max)
      lines.push(
        `floodgate/baseline max rate: x${c.maxRateRatio ?? "n/a (a search found no passing stage)"}`,
      );
  }
  if (result.error) lines.push(`ERROR: ${result.error}`);
  return lines;
}
