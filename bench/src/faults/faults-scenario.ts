// `./floodgate bench faults` (issue 18, point 9): each fault injected under a steady load of shop clients
// (own Idempotency-Key per payment, retries with the same key), then the exactly-once audit per key. Orders
// paid at the shop's payment provider are mixed in (issue 33) and audited apart; reconcile runs after the faults. The system
// runs on a private Redis with AOF `appendfsync always` behind proxies (fault-rig.ts); the Redis restarts under
// `everysec` and without persistence come last.
import { adminRequest } from "../harness/admin-client.ts";
import { log } from "../harness/progress-line.ts";
import { resultHeader } from "../harness/result-head.ts";
import { finishRun } from "../harness/scenario-run.ts";
import type { Scenario, ScenarioContext, ScenarioOutcome } from "../scenario.ts";
import { AFTER_FAULT_PHASES } from "./after-fault-phases.ts";
import { findFault } from "./fault-catalogue.ts";
import { type FaultResult, runFaultPhase } from "./fault-phase.ts";
import { type FaultRig, startFaultRig } from "./fault-rig.ts";
import { FAULTS_OPTION_SPECS, type FaultsOptions, toFaultsOptions } from "./faults-options.ts";
import { faultsTable, overloadLines, providerLine, verdict } from "./faults-summary.ts";
import { hostsRefusal, runHostsFaults } from "./hosts/hosts-faults-run.ts";
import type { OverloadPlan } from "./overload-session.ts";
import { type ShopSetup, setUpBurstUsers, setUpShop } from "./shop-funding.ts";
import { measureSustainableRate, type SustainableRate } from "./sustainable-rate.ts";

export const faultsScenario: Scenario = {
  name: "faults",
  description:
    "each fault (worker/intake SIGKILL, Redis down/restarted, shard stopped/frozen/read-only/slow, global database restarted, an open-loop burst at 5x the sustainable rate) under 1,000 payments/s, then the exactly-once audit",
  options: FAULTS_OPTION_SPECS,
  // --hosts on a machine that cannot make them (not root, no iproute2, no Postgres binaries): stop at once.
  preflight: (values) => (values.hosts === true ? hostsRefusal() : null),
  run: (values, context) => {
    const options = toFaultsOptions(values);
    return options.hosts ? runHostsFaults(options, context) : runFaults(options, context);
  },
};

/** A key's sequence number (its payment's amount) starts each fault's range here, so ranges never overlap. */
const SEQ_PER_FAULT = 1_000_000;

async function runFaults(options: FaultsOptions, context: ScenarioContext): Promise<ScenarioOutcome> {
  const result = {
    ...resultHeader(
      "faults",
      context,
      options,
      "shop clients: node:http keep-alive in the bench process, paced every 10 ms, retrying with the same Idempotency-Key; overload burst: raw pipelined keep-alive sockets on a worker thread, open loop, counts only",
    ),
    redis: "private redis-server, AOF appendfsync always (temp dir), behind a TCP proxy",
    setup: null as ShopSetup | null,
    burstSetup: null as ShopSetup | null,
    /** Measured before the faults when the overload fault runs (sustainable-rate.ts). */
    sustainable: null as SustainableRate | null,
    faults: [] as FaultResult[],
    afterFaults: {} as Record<string, unknown>,
    error: null as string | null,
  };
  let rig: FaultRig | null = null;
  return finishRun(
    result,
    async () => {
      rig = await startFaultRig({
        logFile: context.logFile,
        intakeProcesses: options.intakeProcesses,
        workers: options.workers,
      });
      result.settings.systemEnvironment = rig.system.environment(options.workers, true);
      result.setup = await setUpShop(rig, options.users);
      const productId = await createProviderProduct(rig);
      const overloadPlan = options.faults.includes("overload")
        ? await planOverload(rig, options, `faults-${context.stamp}`, (setup, sustainable) => {
            result.burstSetup = setup;
            result.sustainable = sustainable;
          })
        : null;
      for (const [index, name] of options.faults.entries()) {
        log(`fault ${index + 1} of ${options.faults.length}: ${name}`);
        const fault = await runFaultPhase(
          rig,
          findFault(name),
          { ...options, overloadPlan, productId },
          (index + 1) * SEQ_PER_FAULT,
          `faults-${context.stamp}-${name}`,
        );
        result.faults.push(fault);
        log(
          `${name}: accepted ${fault.accepted}, lost ${fault.lost}, applied twice ${fault.appliedTwice}, 5xx ${fault.fiveXx}, recovered in ${fault.secondsToRecover ?? "-"} s`,
        );
        log(providerLine(fault));
      }
      for (const phase of AFTER_FAULT_PHASES) {
        log(`after the faults: ${phase.name}`);
        result.afterFaults[phase.name] = await phase.run(rig);
      }
      const failedAfter = Object.entries(result.afterFaults)
        .filter(([, outcome]) => (outcome as { passed?: boolean }).passed === false)
        .map(([name]) => `${name} did not pass (see afterFaults)`);
      result.error = [verdict(result.faults), ...failedAfter].filter(Boolean).join("; ") || null;
    },
    async () => {
      await (rig as FaultRig | null)?.close();
    },
    (r) => [
      `faults at ${options.rate} payments/s (${options.users} users, ${options.intakeProcesses} intake processes, ${options.workers} workers; load generator, intake, workers, Redis and Postgres share this machine)`,
      ...faultsTable(r.faults),
      ...r.faults.map((fault) => providerLine(fault)),
      ...overloadLines(r.faults.find((fault) => fault.name === "overload")),
      ...Object.entries(r.afterFaults).map(
        ([name, outcome]) =>
          `${name} (after the faults, same system): ${(outcome as { passed?: boolean }).passed ? "passed" : "FAILED"}`,
      ),
      ...(r.error ? [`FAILED: ${r.error}`] : []),
    ],
  );
}

/** What the provider-paid orders buy: one unit each, far more stock than a run sells, no per-user cap in reach
 * (a fifth of the orders are left unpaid until they expire). */
async function createProviderProduct(rig: FaultRig): Promise<string> {
  const product = await adminRequest(rig.system.baseUrl, rig.system.adminKey, "POST", "/v1/products", {
    name: "faults: provider-paid orders",
    price: 100,
    stock: 10_000_000,
    maxUnitsPerUser: 1_000_000,
  });
  if (typeof product.id !== "string") throw new Error("creating the provider orders' product: no id");
  return product.id;
}

/** The overload burst's users, the sustainable rate measured with them, and the rate the fault will offer. */
async function planOverload(
  rig: FaultRig,
  options: FaultsOptions,
  keyPrefix: string,
  record: (setup: ShopSetup, sustainable: SustainableRate) => void,
): Promise<OverloadPlan> {
  const burst = await setUpBurstUsers(rig, options.burstUsers);
  const sustainable = await measureSustainableRate(rig, burst.users, {
    connections: options.burstConnections,
    keyPrefix: `${keyPrefix}-calibration`,
    drainTimeoutSeconds: options.drainTimeoutSeconds,
  });
  record(burst.setup, sustainable);
  const measured = sustainable.sustainableRate;
  // No step passing is a finding, not a reason to stop: the best 2xx rate seen stands in, and the basis says so.
  const fallback = Math.max(0, ...sustainable.steps.map((step) => step.acceptedRate));
  const base = measured ?? fallback;
  const targetRate = options.overloadRate || options.overloadFactor * base;
  const basis =
    options.overloadRate > 0
      ? "--overload-rate"
      : measured !== null
        ? `${options.overloadFactor} x the sustainable ${measured}/s`
        : `${options.overloadFactor} x ${fallback}/s, the best 2xx rate of a calibration in which no step passed`;
  log(`overload plan: ${targetRate}/s (${basis})`);
  return {
    targetRate,
    sustainableRate: measured,
    basis,
    users: burst.users,
    connections: options.burstConnections,
  };
}
