// The payments scenario's building blocks, shared by a single system's pass (payments-scenario.ts) and the auth
// comparison's two systems side by side (system-pair-run.ts): setting a Floodgate up, the warm-up, the fixed-rate
// run and the intake budget.

import { type IntakeBudget, measureIntakeBudget } from "../audits/intake-budget.ts";
import type { BenchTarget } from "../harness/bench-target.ts";
import type { FreshFloodgate, RecordedSystem } from "../harness/fresh-floodgate.ts";
import { benchUserId } from "../harness/payment-requests.ts";
import { fundWallets } from "../harness/wallet-funding.ts";
import { startMemoryMeasure } from "../redis-footprint/memory-per-payment.ts";
import { startRedisCpuMeasure } from "../redis-footprint/redis-cpu-per-payment.ts";
import type { RedisFootprint } from "../redis-footprint/system-footprint.ts";
import type { PaymentsOptions } from "./payments-options.ts";
import type { TargetPhases } from "./payments-summary.ts";
import { type RatePhaseResult, runRatePhase } from "./rate-phase.ts";

/** Payments of the intake-budget count (Redis commands and Postgres queries per accepted payment). */
const BUDGET_PAYMENTS = 5000;

/** The unmeasured warm-up each target takes before its measured phases. */
const WARM_UP = { rate: 500, durationS: 5 };

/** Start (databases dropped, server key created), fund the wallets with the server key, and mint the shoppers'
 * tokens (auth on): setup, recorded but not measured. */
export async function prepareFloodgate(
  floodgate: FreshFloodgate,
  options: PaymentsOptions,
  recorded: RecordedSystem,
  into: TargetPhases,
): Promise<void> {
  const { system } = floodgate;
  await floodgate.start(options.workers, recorded);
  const { baseUrl, shards } = system.target;
  into.funding = await fundWallets({
    baseUrl,
    shards,
    users: options.users,
    connections: options.connections,
    identity: system.identity,
  });
  if (system.identity.auth === "on") {
    into.customerTokens = await system.identity.addShoppers(
      Array.from({ length: options.users }, (_, i) => benchUserId(i)),
    );
  }
}

// Both targets start their measured phases warm. Floodgate's intake has just taken the wallet funding; the
// baseline seeds its wallets in SQL, so without this its first stage was also its first load (pool connections
// opening, code not yet optimised): on a slow machine that cold-start tail alone failed the --max search's
// first stage (500/s at p99 98 ms, then 471/s passed) and capped the baseline below its rate.
export function warmUp(
  target: BenchTarget,
  options: PaymentsOptions,
  keyPrefix: string,
  label: string = target.name,
): Promise<RatePhaseResult> {
  return runRatePhase({
    target,
    label: `${label} warm-up`,
    rate: WARM_UP.rate,
    durationS: WARM_UP.durationS,
    connections: options.connections,
    slices: options.slices,
    users: options.users,
    keyPrefix: `${keyPrefix}-warm-up`,
    applyTimeoutMs: 60_000,
  });
}

/**
 * The fixed-rate run; given the system's Redis footprint (Floodgate), also its Redis CPU per applied payment (up
 * to the moment the last is applied) and its Redis memory per payment (after the streams' trim).
 */
export async function fixedRateRun(
  target: BenchTarget,
  options: PaymentsOptions,
  keyPrefix: string,
  label: string = target.name,
  footprint?: RedisFootprint,
): Promise<RatePhaseResult> {
  const memory = footprint ? await startMemoryMeasure(footprint) : null;
  const cpu = footprint ? await startRedisCpuMeasure(footprint.redisUrl) : null;
  const phase = await runRatePhase({
    target,
    label: `${label} @ ${options.rate}/s`,
    rate: options.rate,
    durationS: options.duration,
    connections: options.connections,
    slices: options.slices,
    users: options.users,
    keyPrefix: `${keyPrefix}-rate`,
    // The backlog of a run the workers could not keep up with: bounded, and reported if not drained.
    applyTimeoutMs: Math.max(120_000, options.duration * 3000),
  });
  // runRatePhase returns once every accepted payment is applied (or its wait gave up: allApplied says which).
  if (cpu) phase.redisCpu = await cpu.finish(phase.audit.accepted - phase.audit.missing);
  if (memory) phase.redisMemory = await memory.finish(phase.audit.accepted);
  return phase;
}

export function intakeBudget(
  floodgate: FreshFloodgate,
  options: PaymentsOptions,
  keyPrefix: string,
): Promise<IntakeBudget> {
  return measureIntakeBudget({
    system: floodgate.system,
    workers: options.workers,
    users: options.users,
    payments: BUDGET_PAYMENTS,
    keyPrefix: `${keyPrefix}-budget`,
  });
}
