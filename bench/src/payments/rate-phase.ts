// One fixed-rate phase: payments at `rate`/s for `durationS`, then wait for every accepted payment to be
// applied and audit the shards. Used for the main run and for each stage of the --max search.

import type { DeliveryAudit } from "../audits/delivery-audit.ts";
import { awaitDelivery } from "../audits/delivery-wait.ts";
import type { BenchTarget } from "../harness/bench-target.ts";
import { type CpuUsage, startCpuMeter } from "../harness/cpu-meter.ts";
import { type LatencySummary, summarizeLatencies } from "../harness/latency-summary.ts";
import { runLoad } from "../harness/load-runner.ts";
import { paymentRequest } from "../harness/payment-requests.ts";
import { type PerSecondSeries, perSecondSeries } from "../harness/per-second-series.ts";
import type { RedisMemory } from "../redis-footprint/memory-per-payment.ts";
import type { RedisCpu } from "../redis-footprint/redis-cpu-per-payment.ts";

export interface RatePhaseResult {
  target: string;
  offeredRate: number;
  durationS: number;
  connections: number;
  /** Staggered autocannon instances that offered the rate (see load-runner.ts). */
  slices: number;
  responses: number;
  accepted: number;
  acceptedRate: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCounts: Record<string, number>;
  /** Response times seen by the load generator, every response. */
  intakeLatencyMs: LatencySummary | null;
  /** 2xx, answers and p50/p99 second by second, for the result's chart; absent from older results. */
  perSecond?: PerSecondSeries;
  /** Where the cpu went while the load ran (null where /proc is not there). */
  cpu: CpuUsage | null;
  /** False when the wait for the workers hit its bound before every accepted payment was applied. */
  allApplied: boolean;
  audit: DeliveryAudit;
  /** The fixed-rate run on Floodgate: Redis memory per accepted payment once applied (null: the read failed). */
  redisMemory?: RedisMemory | null;
  /** The fixed-rate run on Floodgate: Redis CPU per applied payment, everything counted (null: a read failed). */
  redisCpu?: RedisCpu | null;
}

export async function runRatePhase(options: {
  target: BenchTarget;
  label: string;
  rate: number;
  durationS: number;
  connections: number;
  slices: number;
  users: number;
  keyPrefix: string;
  /** Bound on the wait for the workers after the load stops. */
  applyTimeoutMs: number;
}): Promise<RatePhaseResult> {
  const { target } = options;
  const acceptedIds: string[] = [];
  const since = new Date();
  const meter = startCpuMeter();
  const load = await runLoad({
    label: options.label,
    url: target.baseUrl,
    connections: options.connections,
    rate: options.rate,
    slices: options.slices,
    durationS: options.durationS,
    request: paymentRequest({
      users: options.users,
      keyPrefix: options.keyPrefix,
      acceptedIds,
      identity: target.identity,
    }),
  });
  const cpu = meter.stop();
  const { audit, allApplied } = await awaitDelivery({
    label: `${options.label} applying`,
    shards: target.shards,
    since,
    acceptedIds,
    timeoutMs: options.applyTimeoutMs,
  });
  return {
    target: target.name,
    offeredRate: options.rate,
    durationS: load.durationS,
    connections: options.connections,
    slices: load.slices,
    responses: load.responses,
    accepted: load.ok,
    acceptedRate: Math.round((load.ok / load.durationS) * 10) / 10,
    non2xx: load.non2xx,
    errors: load.errors,
    timeouts: load.timeouts,
    statusCounts: load.statusCounts,
    intakeLatencyMs: summarizeLatencies(load.latencies),
    perSecond: perSecondSeries(load),
    cpu,
    allApplied,
    audit,
  };
}
