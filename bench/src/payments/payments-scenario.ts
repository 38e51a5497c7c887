// `./floodgate bench payments`: Floodgate started fresh, wallets funded by the shop's server key, a customer
// token minted per shopper, then the phases the options ask for (fixed-rate run, --max search, --sustained
// search, --drain) and the intake's budget; with --auth compare, a second Floodgate with AUTH=off set up beside
// the first, with --redis cluster one on a private Redis Cluster, and the measured phases run on both back to
// back (system-pair-run.ts); then the same for the synchronous baseline with --baseline.

import { type BaselineHandle, startBaseline } from "../baseline/baseline-target.ts";
import type { BenchTarget } from "../harness/bench-target.ts";
import { type FreshFloodgate, freshFloodgate, type RecordedSystem } from "../harness/fresh-floodgate.ts";
import { describeLoadGenerator } from "../harness/load-runner.ts";
import { log } from "../harness/progress-line.ts";
import { resultHeader } from "../harness/result-head.ts";
import { finishRun } from "../harness/scenario-run.ts";
import { type RedisFootprint, redisFootprint } from "../redis-footprint/system-footprint.ts";
import { type BenchRedisCluster, startBenchRedisCluster } from "../redis-topology/bench-redis-cluster.ts";
import { floodgateOnCluster } from "../redis-topology/floodgate-on-cluster.ts";
import { compareRedisTopologies } from "../redis-topology/redis-topology-cost.ts";
import { compareReplicaWait } from "../redis-topology/replica-wait-cost.ts";
import type { Scenario, ScenarioContext, ScenarioOutcome } from "../scenario.ts";
import { compareAuth } from "./auth-cost.ts";
import { runDrainPhase } from "./drain-phase.ts";
import { searchMaxRate } from "./max-rate-search.ts";
import { PAYMENTS_OPTION_SPECS, type PaymentsOptions, toPaymentsOptions } from "./payments-options.ts";
import { fixedRateRun, intakeBudget, prepareFloodgate, warmUp } from "./payments-phases.ts";
import {
  comparePhases,
  type PaymentsResult,
  summarizePayments,
  type TargetPhases,
} from "./payments-summary.ts";
import { keyspaceReader } from "./redis-keyspace.ts";
import { runSaturation } from "./saturation/saturation-scenario.ts";
import { searchSustainedRate } from "./sustained-search.ts";
import { runSystemPair } from "./system-pair-run.ts";

export const paymentsScenario: Scenario = {
  name: "payments",
  description:
    "POST /v1/payments at a fixed rate (seed 000: 2,000/s for 60 s), --max, --sustained, --drain, --baseline; --max --generator wrk [--peer raw] [--peer bullmq]",
  options: PAYMENTS_OPTION_SPECS,
  run: (values, context) => {
    const options = toPaymentsOptions(values);
    // --generator wrk: --max is the closed-loop saturation comparison, a run of its own (saturation/).
    return options.generator === "wrk" ? runSaturation(options, context) : runPayments(options, context);
  },
};

async function runPayments(options: PaymentsOptions, context: ScenarioContext): Promise<ScenarioOutcome> {
  // --redis cluster-wait: both systems run on the private cluster, started inside the run.
  let floodgate: FreshFloodgate =
    options.redis === "cluster-wait"
      ? (null as unknown as FreshFloodgate)
      : freshFloodgate(context, { auth: options.auth === "off" ? "off" : "on" });
  // --auth compare: the AUTH=off system runs beside the first one, on its own port, Redis prefix and databases.
  let authOff: FreshFloodgate | null =
    options.auth === "compare" ? freshFloodgate(context, { auth: "off", instance: "auth_off" }) : null;
  const closeAuthOff = async () => {
    await authOff?.close();
    authOff = null;
  };
  // --redis cluster: the cluster and the system on it start inside the run (their failures are the run's error).
  const clusterSide = floodgateOnCluster(context);
  // --redis cluster-wait: the cluster holds both systems, the second one started here.
  let cluster: BenchRedisCluster | null = null;
  let onCluster: FreshFloodgate | null = null;
  const closeCluster = async () => {
    await clusterSide.close();
    await onCluster?.close();
    onCluster = null;
    await cluster?.stop();
    cluster = null;
  };
  const result: PaymentsResult = {
    ...resultHeader("payments", context, options, describeLoadGenerator(options.slices)),
    floodgate: {},
    floodgateAuthOff: authOff !== null ? {} : null,
    authCost: null,
    floodgateCluster: options.redis === "single" ? null : {},
    redisCluster: null,
    redisTopology: null,
    replicaWait: null,
    baseline: options.baseline ? {} : null,
    comparison: null,
    error: null,
  };
  const keyPrefix = `bench-${context.stamp}`;
  return finishRun(
    result,
    async () => {
      if (options.redis === "cluster-wait") {
        log(
          "--redis cluster-wait: two Floodgates on a private Redis Cluster with replicas, REDIS_WAIT_REPLICAS=0 and =1",
        );
        cluster = await startBenchRedisCluster(1);
        result.redisCluster = cluster.description;
        floodgate = freshFloodgate(context, { instance: "cluster", redisUrl: cluster.url });
      }
      await prepareFloodgate(floodgate, options, result, result.floodgate);
      if (options.redis === "cluster-wait" && cluster !== null && result.floodgateCluster !== null) {
        onCluster = freshFloodgate(context, {
          instance: "cluster_wait",
          redisUrl: cluster.url,
          extraEnvironment: { REDIS_WAIT_REPLICAS: "1" },
        });
        result.settings.clusterSystemEnvironment = await measureBeside(
          { floodgate, into: result.floodgate, label: "floodgate REDIS_WAIT_REPLICAS=0" },
          {
            floodgate: onCluster,
            into: result.floodgateCluster,
            label: "floodgate REDIS_WAIT_REPLICAS=1",
            suffix: "wait",
          },
          // Both on the cluster: its key count is spread over its masters, no rerun rule there.
          { options, keyPrefix, sameRedis: false },
        );
        result.replicaWait = compareReplicaWait(result.floodgate, result.floodgateCluster);
        await onCluster.close();
        onCluster = null;
      } else if (authOff !== null && result.floodgateAuthOff !== null) {
        log("--auth compare: a second Floodgate with AUTH=off beside the first; stages run in pairs");
        result.settings.authOffSystemEnvironment = await measureBeside(
          { floodgate, into: result.floodgate, label: "floodgate auth on" },
          {
            floodgate: authOff,
            into: result.floodgateAuthOff,
            label: "floodgate AUTH=off",
            suffix: "auth-off",
          },
          { options, keyPrefix, sameRedis: true },
        );
        result.authCost = compareAuth(result.floodgate, result.floodgateAuthOff);
        // What follows (--drain, the baseline) gets the machine without it.
        await closeAuthOff();
      } else if (result.floodgateCluster !== null) {
        log(
          "--redis cluster: a second Floodgate on a private Redis Cluster beside the first; stages run in pairs",
        );
        const opened = await clusterSide.open();
        result.redisCluster = opened.description;
        result.settings.clusterSystemEnvironment = await measureBeside(
          { floodgate, into: result.floodgate, label: "floodgate one Redis" },
          {
            floodgate: opened.floodgate,
            into: result.floodgateCluster,
            label: "floodgate Redis Cluster",
            suffix: "cluster",
          },
          // The cluster's key count is spread over its masters, each doubling its own table: no rerun rule there.
          { options, keyPrefix, sameRedis: false },
        );
        result.redisTopology = compareRedisTopologies(result.floodgate, result.floodgateCluster);
        await closeCluster();
      } else {
        await runFloodgatePhases(floodgate, options, result.floodgate, keyPrefix);
      }
      if (options.drain !== null) {
        result.floodgate.drain = await runDrainPhase({
          system: floodgate.system,
          count: options.drain,
          workers: options.workers,
          connections: options.connections,
          users: options.users,
          keyPrefix: `${keyPrefix}-drain`,
          footprint: redisFootprint(floodgate),
        });
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
      const broken = [result.floodgate, result.floodgateAuthOff, result.floodgateCluster].filter(
        (phases) => phases?.intakeBudget && !phases.intakeBudget.held,
      );
      if (broken.length > 0) {
        result.error =
          "the intake budget does not hold (1 Redis command per accepted payment, no Postgres query): see intakeBudget";
      }
    },
    async () => {
      await closeAuthOff();
      // The first system may live on the cluster (cluster-wait): it closes before the cluster stops.
      await floodgate?.close();
      await closeCluster();
    },
    summarizePayments,
  );
}

/**
 * A second Floodgate set up beside the first (already set up) and the measured phases run on both in pairs
 * (system-pair-run.ts); returns the second one's environment for the result. The first one's Redis key count
 * feeds the rerun rule of key-table-doubling.ts, for the second too when they share that Redis.
 */
async function measureBeside(
  first: { floodgate: FreshFloodgate; into: TargetPhases; label: string },
  second: { floodgate: FreshFloodgate; into: TargetPhases; label: string; suffix: string },
  run: { options: PaymentsOptions; keyPrefix: string; sameRedis: boolean },
): Promise<unknown> {
  const recorded: RecordedSystem = { settings: {}, services: null };
  await prepareFloodgate(second.floodgate, run.options, recorded, second.into);
  const keyspace = keyspaceReader(first.floodgate.environment.redisUrl);
  try {
    await runSystemPair(
      { ...first, keyPrefix: run.keyPrefix, redisKeys: keyspace.keys },
      {
        floodgate: second.floodgate,
        into: second.into,
        label: second.label,
        keyPrefix: `${run.keyPrefix}-${second.suffix}`,
        ...(run.sameRedis ? { redisKeys: keyspace.keys } : {}),
      },
      run.options,
    );
  } finally {
    keyspace.close();
  }
  return recorded.settings.systemEnvironment;
}

/** One Floodgate's measured phases and, after them, its intake budget. */
async function runFloodgatePhases(
  floodgate: FreshFloodgate,
  options: PaymentsOptions,
  into: TargetPhases,
  keyPrefix: string,
) {
  const keyspace = keyspaceReader(floodgate.environment.redisUrl);
  try {
    await runPhases(
      floodgate.system.target,
      options,
      keyPrefix,
      into,
      keyspace.keys,
      redisFootprint(floodgate),
    );
  } finally {
    keyspace.close();
  }
  if (options.fixedRate || options.max) into.intakeBudget = await intakeBudget(floodgate, options, keyPrefix);
}

/** The phases shared by Floodgate and the baseline: a warm-up, the fixed-rate run and the --max search; and
 * Floodgate's --sustained search. */
async function runPhases(
  target: BenchTarget,
  options: PaymentsOptions,
  keyPrefix: string,
  into: TargetPhases,
  redisKeys?: () => Promise<number>,
  /** Floodgate's Redis: the fixed-rate run also measures its memory per payment; --sustained samples its lag. */
  footprint?: RedisFootprint,
) {
  // --drain alone: nothing here to measure, nothing to warm.
  if (!options.fixedRate && !options.max && !options.sustained) return;
  into.warmUp = await warmUp(target, options, keyPrefix);
  if (options.fixedRate) into.rate = await fixedRateRun(target, options, keyPrefix, target.name, footprint);
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
  if (options.sustained && footprint) {
    into.sustained = await searchSustainedRate({
      target,
      startRate: options.rate,
      maxStages: options.sustainedStages,
      stageDurationS: options.sustainedDuration,
      connections: options.connections,
      slices: options.slices,
      users: options.users,
      keyPrefix: `${keyPrefix}-sustained`,
      redisUrl: footprint.redisUrl,
      streams: footprint.streams,
    });
  }
}
