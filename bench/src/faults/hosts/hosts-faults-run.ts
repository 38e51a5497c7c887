// `./floodgate bench faults --hosts` (issue 35): Redis (one node or a cluster), Postgres, the intakes and the
// workers on test hosts of their own, each fault between hosts under the steady load of shop clients retrying
// with the same Idempotency-Key, provider-paid orders alongside, then the same audit per key as the other faults
// (every 202 applied exactly once, wallets add up, the provider orders' stock adds up). A fault this machine cannot make is recorded as unavailable and
// fails the run: it is never counted as passed.
import { adminRequest } from "../../harness/admin-client.ts";
import { log } from "../../harness/progress-line.ts";
import { resultHeader } from "../../harness/result-head.ts";
import { finishRun } from "../../harness/scenario-run.ts";
import type { ScenarioContext, ScenarioOutcome } from "../../scenario.ts";
import { type FaultResult, runFaultPhase } from "../fault-phase.ts";
import type { FaultsOptions } from "../faults-options.ts";
import { faultsTable, providerLine, verdict } from "../faults-summary.ts";
import { type ShopSetup, setUpShop } from "../shop-funding.ts";
import { FAILED_NOTE } from "./failed-note.ts";
import { findHostFault } from "./host-faults.ts";
import { HostsUnavailableError } from "./host-preconditions.ts";
import { type HostsFaultRig, requireTestHosts, startHostsFaultRig } from "./hosts-fault-rig.ts";

/** A key's sequence number (its payment's amount) starts each fault's range here, so ranges never overlap. */
const SEQ_PER_FAULT = 1_000_000;

export interface UnavailableFault {
  name: string;
  model: string;
  /** Starts with "unavailable:" and names what the machine lacks. */
  reason: string;
}

/** The message `--hosts` stops with on a machine that cannot make the hosts; null when it can. */
export function hostsRefusal(): string | null {
  try {
    requireTestHosts();
    return null;
  } catch (error) {
    if (error instanceof HostsUnavailableError) return error.message;
    throw error;
  }
}

export async function runHostsFaults(
  options: FaultsOptions,
  context: ScenarioContext,
): Promise<ScenarioOutcome> {
  const result = {
    ...resultHeader(
      "faults",
      context,
      options,
      "shop clients: node:http keep-alive in the bench process, paced every 10 ms, retrying with the same Idempotency-Key",
    ),
    redis:
      options.hostsRedis === "cluster"
        ? `a Redis Cluster of 3 masters and a replica each, every redis-server on a test host of its own (network namespace), AOF appendfsync always, reached over the bridge; REDIS_WAIT_REPLICAS=${options.waitReplicas}`
        : "redis-server on a test host of its own (network namespace), AOF appendfsync always, reached over the bridge",
    /** Faults whose lost payments are counted, not a failure: a master's failover without REDIS_WAIT_REPLICAS. */
    lossCounted: lossCountedFaults(options),
    hosts: null as Record<string, string> | null,
    setup: null as ShopSetup | null,
    faults: [] as FaultResult[],
    /** Faults this machine cannot make: not run, not passed. */
    unavailable: [] as UnavailableFault[],
    error: null as string | null,
  };
  let rig: HostsFaultRig | null = null;
  return finishRun(
    result,
    async () => {
      rig = await startHostsFaultRig({
        logFile: context.logFile,
        intakeProcesses: options.intakeProcesses,
        workers: options.workers,
        redis: options.hostsRedis,
        waitReplicas: options.waitReplicas,
      });
      result.hosts = rig.placement;
      result.settings.systemEnvironment = rig.system.environment(options.workers, true);
      result.setup = await setUpShop(rig, options.users);
      const productId = await createProviderProduct(rig);
      for (const [index, name] of options.hostFaults.entries()) {
        const fault = findHostFault(name);
        const reason = fault.unavailable?.(rig) ?? null;
        if (reason !== null) {
          log(`fault ${index + 1} of ${options.hostFaults.length}: ${name}: ${reason}`);
          result.unavailable.push({ name, model: fault.model, reason });
          continue;
        }
        log(`fault ${index + 1} of ${options.hostFaults.length}: ${name}`);
        const outcome = await runFaultPhase(
          rig,
          { ...fault, model: fault.modelHere?.() ?? fault.model },
          { ...options, overloadPlan: null, productId },
          (index + 1) * SEQ_PER_FAULT,
          `faults-${context.stamp}-${name}`,
        );
        result.faults.push(outcome);
        log(
          `${name}: accepted ${outcome.accepted}, lost ${outcome.lost}, applied twice ${outcome.appliedTwice}, 5xx ${outcome.fiveXx}, wallets ${outcome.walletInvariant.holds ? "ok" : "OFF"}, recovered in ${outcome.secondsToRecover ?? "-"} s`,
        );
        log(providerLine(outcome, result.lossCounted.includes(name)));
      }
      const notRun = result.unavailable.map((fault) => `${fault.name} ${fault.reason} (not run)`);
      const notMade = result.faults.flatMap((fault) =>
        fault.notes.filter((note) => note.startsWith(FAILED_NOTE)).map((note) => `${fault.name}: ${note}`),
      );
      result.error =
        [verdict(result.faults, new Set(result.lossCounted)), ...notMade, ...notRun]
          .filter(Boolean)
          .join("; ") || null;
    },
    async () => {
      await (rig as HostsFaultRig | null)?.close();
    },
    (r) => [
      `faults between hosts at ${options.rate} payments/s (${options.users} users, ${options.intakeProcesses} intake processes, ${options.workers} workers; ${options.hostsRedis === "cluster" ? `a Redis Cluster (3 masters, a replica each, REDIS_WAIT_REPLICAS=${options.waitReplicas})` : "Redis"}, two Postgres servers, the intakes and the workers in network namespaces on one bridge, everything on this machine)`,
      ...faultsTable(r.faults),
      ...r.lossCounted.map((name) => `${name}: lost payments counted, not a failure (REDIS_WAIT_REPLICAS=0)`),
      ...r.faults.map((fault) => providerLine(fault, r.lossCounted.includes(fault.name))),
      ...r.unavailable.map((fault) => `${fault.name}: ${fault.reason}; not run, not passed`),
      ...(r.error ? [`FAILED: ${r.error}`] : []),
    ],
  );
}

/** Without REDIS_WAIT_REPLICAS a 202 leaves once the master has the request: a failover after a master was cut
 * off loses what it took and no worker applied, as docs/operations.md says. Counted, not a failure. */
export function lossCountedFaults(options: Pick<FaultsOptions, "hostsRedis" | "waitReplicas">): string[] {
  return options.hostsRedis === "cluster" && options.waitReplicas === 0
    ? ["hosts-cluster-master-partition"]
    : [];
}

/** What the provider-paid orders buy (as the other faults' run makes it). */
async function createProviderProduct(rig: HostsFaultRig): Promise<string> {
  const product = await adminRequest(rig.system.baseUrl, rig.system.adminKey, "POST", "/v1/products", {
    name: "faults between hosts: provider-paid orders",
    price: 100,
    stock: 10_000_000,
    maxUnitsPerUser: 1_000_000,
  });
  if (typeof product.id !== "string") throw new Error("creating the provider orders' product: no id");
  return product.id;
}
