// `./floodgate bench payments`: Floodgate started fresh, wallets funded by the shop's server key, a customer
// token minted per shopper, then the phases the options ask for (fixed-rate run, --max search, --drain) and the
// intake's budget; with --auth compare, the measured phases again on a fresh Floodgate with AUTH=off; then the
// same for the synchronous baseline with --baseline.
import { compareAuth } from "./auth-cost.ts";
import { type BaselineHandle, startBaseline } from "./baseline-target.ts";
import type { BenchTarget } from "./bench-target.ts";
import { runDrainPhase } from "./drain-phase.ts";
import { type FreshFloodgate, freshFloodgate, type RecordedSystem } from "./fresh-floodgate.ts";
import { measureIntakeBudget } from "./intake-budget.ts";
import { describeLoadGenerator } from "./load-runner.ts";
import { searchMaxRate } from "./max-rate-search.ts";
import { benchUserId } from "./payment-requests.ts";
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

/** Payments of the intake-budget count (Redis commands and Postgres queries per accepted payment). */
const BUDGET_PAYMENTS = 5000;

async function runPayments(options: PaymentsOptions, context: ScenarioContext): Promise<ScenarioOutcome> {
  let floodgate = freshFloodgate(context, { auth: options.auth === "off" ? "off" : "on" });
  const result: PaymentsResult = {
    ...resultHeader("payments", context, options, describeLoadGenerator(options.slices)),
    floodgate: {},
    floodgateAuthOff: options.auth === "compare" ? {} : null,
    authCost: null,
    baseline: options.baseline ? {} : null,
    comparison: null,
    error: null,
  };
  const keyPrefix = `bench-${context.stamp}`;
  return finishRun(
    result,
    async () => {
      await runFloodgate(floodgate, options, result, result.floodgate, keyPrefix, true);
      if (result.floodgateAuthOff !== null) {
        // A fresh system (databases dropped, the run's Redis keys deleted) so both searches start from the same
        // state: the first one's rows and keys would otherwise load the second.
        log("--auth compare: the same phases on a fresh Floodgate with AUTH=off");
        await floodgate.close();
        floodgate = freshFloodgate(context, { auth: "off" });
        const recorded: RecordedSystem = { settings: {}, services: null };
        await runFloodgate(
          floodgate,
          options,
          recorded,
          result.floodgateAuthOff,
          `${keyPrefix}-auth-off`,
          false,
        );
        result.settings.authOffSystemEnvironment = recorded.settings.systemEnvironment;
        result.authCost = compareAuth(result.floodgate, result.floodgateAuthOff);
      }
      // Floodgate stops before the baseline starts: each gets the whole machine.
      await floodgate.system.stop();
      if (result.baseline !== null) {
        log("starting the synchronous baseline");
        const baseline: BaselineHandle = await startBaseline({
          databaseUrl: floodgate.environment.baselineDatabaseUrl,
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
      const broken = [result.floodgate, result.floodgateAuthOff].filter(
        (phases) => phases?.intakeBudget && !phases.intakeBudget.held,
      );
      if (broken.length > 0) {
        result.error =
          "the intake budget does not hold (1 Redis command per accepted payment, no Postgres query): see intakeBudget";
      }
    },
    () => floodgate.close(),
    summarizePayments,
  );
}

/** One Floodgate pass: start, fund (server key), mint the shoppers' tokens (auth on), the measured phases, the
 * intake budget, and --drain when asked. */
async function runFloodgate(
  floodgate: FreshFloodgate,
  options: PaymentsOptions,
  recorded: RecordedSystem,
  into: TargetPhases,
  keyPrefix: string,
  withDrain: boolean,
) {
  const { system, environment } = floodgate;
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
  const keyspace = keyspaceReader(environment.redisUrl);
  try {
    await runPhases(system.target, options, keyPrefix, into, keyspace.keys);
  } finally {
    keyspace.close();
  }
  if (options.fixedRate || options.max) {
    into.intakeBudget = await measureIntakeBudget({
      system,
      workers: options.workers,
      users: options.users,
      payments: BUDGET_PAYMENTS,
      keyPrefix: `${keyPrefix}-budget`,
    });
  }
  if (withDrain && options.drain !== null) {
    into.drain = await runDrainPhase({
      system,
      count: options.drain,
      workers: options.workers,
      connections: options.connections,
      users: options.users,
      keyPrefix: `${keyPrefix}-drain`,
    });
  }
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
