// `./floodgate bench payments`: Floodgate started fresh, wallets funded, then the phases the options ask for
// (fixed-rate run, --max search, --drain), then the same for the synchronous baseline with --baseline.
import { type BaselineHandle, startBaseline } from "./baseline-target.ts";
import type { BenchTarget } from "./bench-target.ts";
import { runDrainPhase } from "./drain-phase.ts";
import { freshFloodgate } from "./fresh-floodgate.ts";
import { describeLoadGenerator } from "./load-runner.ts";
import { searchMaxRate } from "./max-rate-search.ts";
import { PAYMENTS_OPTION_SPECS, type PaymentsOptions, toPaymentsOptions } from "./payments-options.ts";
import {
  comparePhases,
  type PaymentsResult,
  summarizePayments,
  type TargetPhases,
} from "./payments-summary.ts";
import { log } from "./progress-line.ts";
import { runRatePhase } from "./rate-phase.ts";
import { keyspaceReader } from "./redis-keyspace.ts";
import type { Scenario, ScenarioContext, ScenarioOutcome } from "./scenario.ts";
import { finishRun, resultHeader } from "./scenario-run.ts";
import { fundWallets } from "./wallet-funding.ts";

export const paymentsScenario: Scenario = {
  name: "payments",
  description: "POST /v1/payments at a fixed rate (seed 000: 2,000/s for 60 s), --max, --drain, --baseline",
  options: PAYMENTS_OPTION_SPECS,
  run: (values, context) => runPayments(toPaymentsOptions(values), context),
};

async function runPayments(options: PaymentsOptions, context: ScenarioContext): Promise<ScenarioOutcome> {
  const floodgate = freshFloodgate(context);
  const { system, environment } = floodgate;
  const result: PaymentsResult = {
    ...resultHeader("payments", context, options, describeLoadGenerator(options.slices)),
    floodgate: {},
    baseline: options.baseline ? {} : null,
    comparison: null,
    error: null,
  };
  const keyPrefix = `bench-${context.stamp}`;
  return finishRun(
    result,
    async () => {
      await floodgate.start(options.workers, result);
      const { baseUrl, shards } = system.target;
      result.floodgate.funding = await fundWallets({
        baseUrl,
        shards,
        users: options.users,
        connections: options.connections,
      });
      const keyspace = keyspaceReader(environment.redisUrl);
      try {
        await runPhases(system.target, options, keyPrefix, result.floodgate, keyspace.keys);
      } finally {
        keyspace.close();
      }
      if (options.drain !== null) {
        result.floodgate.drain = await runDrainPhase({
          system,
          count: options.drain,
          workers: options.workers,
          connections: options.connections,
          users: options.users,
          keyPrefix: `${keyPrefix}-drain`,
        });
      }
      // Floodgate stops before the baseline starts: each gets the whole machine.
      await system.stop();
      if (result.baseline !== null) {
        log("starting the synchronous baseline");
        const baseline: BaselineHandle = await startBaseline({
          databaseUrl: environment.baselineDatabaseUrl,
          users: options.users,
          logFile: context.logFile,
        });
        try {
          await runPhases(baseline.target, options, `${keyPrefix}-baseline`, result.baseline);
        } finally {
          await baseline.close();
        }
        result.comparison = comparePhases(result.floodgate, result.baseline);
      }
    },
    () => floodgate.close(),
    summarizePayments,
  );
}

/** The unmeasured warm-up each target takes before its measured phases. */
const WARM_UP = { rate: 500, durationS: 5 };

/** The phases shared by Floodgate and the baseline: a warm-up, the fixed-rate run and the --max search. */
async function runPhases(
  target: BenchTarget,
  options: PaymentsOptions,
  keyPrefix: string,
  into: TargetPhases,
  redisKeys?: () => Promise<number>,
) {
  if (!options.fixedRate && !options.max) return; // --drain alone: nothing here to measure, nothing to warm
  // Both targets start their measured phases warm. Floodgate's intake has just taken the wallet funding; the
  // baseline seeds its wallets in SQL, so without this its first stage was also its first load (pool connections
  // opening, code not yet optimised): on a slow machine that cold-start tail alone failed the --max search's
  // first stage (500/s at p99 98 ms, then 471/s passed) and capped the baseline below its rate.
  into.warmUp = await runRatePhase({
    target,
    label: `${target.name} warm-up`,
    rate: WARM_UP.rate,
    durationS: WARM_UP.durationS,
    connections: options.connections,
    slices: options.slices,
    users: options.users,
    keyPrefix: `${keyPrefix}-warm-up`,
    applyTimeoutMs: 60_000,
  });
  if (options.fixedRate) {
    into.rate = await runRatePhase({
      target,
      label: `${target.name} @ ${options.rate}/s`,
      rate: options.rate,
      durationS: options.duration,
      connections: options.connections,
      slices: options.slices,
      users: options.users,
      keyPrefix: `${keyPrefix}-rate`,
      // The backlog of a run the workers could not keep up with: bounded, and reported if not drained.
      applyTimeoutMs: Math.max(120_000, options.duration * 3000),
    });
  }
  if (options.max) {
    into.max = await searchMaxRate({
      target,
      stageDurationS: options.stageDuration,
      connections: options.connections,
      slices: options.slices,
      users: options.users,
      keyPrefix: `${keyPrefix}-max`,
      redisKeys,
    });
  }
}
