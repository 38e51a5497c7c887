// One fault under the steady load: the shop's clients pay at --rate for --before seconds, the fault is injected
// and ended, the load goes on until the system has recovered (or --recover-timeout), the clients finish their
// retries, the backlog drains (bounded), and the fault's payments are audited per key on the shards. Orders
// paid at the shop's provider run alongside (provider-order-client.ts) and are audited apart.
import { formatCount, log } from "../harness/progress-line.ts";
import { auditFault, type FaultAudit } from "./fault-audit.ts";
import type { FaultTimings } from "./fault-catalogue.ts";
import type { SystemRig } from "./fault-rig.ts";
import type { WalletInvariant } from "./ledger-reads.ts";
import { type OverloadPlan, type OverloadResult, OverloadSession } from "./overload-session.ts";
import { childPids, rssMiB } from "./process-tree.ts";
import { ProviderOrderClient } from "./provider-order-client.ts";
import { type ProviderPaymentsResult, settleProviderPayments } from "./provider-payment-phase.ts";
import { backlogBound, RECOVERED_SECONDS, secondsToRecover } from "./recovery-time.ts";
import { ShopClient, type ShopClientCounts } from "./shop-client.ts";

export interface FaultPhaseOptions {
  rate: number;
  /** What the overload fault offers (null when it is not among the faults run). */
  overloadPlan: OverloadPlan | null;
  users: number;
  connections: number;
  beforeSeconds: number;
  recoverTimeoutSeconds: number;
  drainTimeoutSeconds: number;
  timings: FaultTimings;
  /** Orders per second paid at the shop's provider, alongside the payments (0: none). */
  providerOrderRate: number;
  /** The product those orders buy (one unit each). */
  productId: string;
}

export interface FaultResult {
  name: string;
  model: string;
  offeredRate: number;
  durationSeconds: number;
  /** Measured: from the injection to the fault's end. */
  faultSeconds: number;
  keys: number;
  accepted: number;
  lost: number;
  appliedTwice: number;
  appliedWithoutAnswer: number;
  /** 5xx answers the clients saw, before their retries. */
  fiveXx: number;
  clientRetries: number;
  secondsToRecover: number | null;
  client: ShopClientCounts;
  audit: FaultAudit;
  walletInvariant: WalletInvariant;
  /** Whether every accepted payment reached its shard before the drain wait ended. */
  drained: boolean;
  /** Every intake process's RSS added up: before the phase, its peak, after it, and once a second (by the
   * shop client's second, as the timeline). */
  intakeRssMiB: { before: number; peak: number; after: number; series: { second: number; mib: number }[] };
  /** Per second of the phase: offered, 2xx, 5xx, the applied backlog, and p50/p99 of the answers (any status)
   * received that second (absent from older results). */
  timeline: {
    second: number;
    offered: number;
    accepted: number;
    fiveXx: number;
    backlog: number | null;
    p50Ms?: number | null;
    p99Ms?: number | null;
  }[];
  /** The orders paid at the shop's provider during the phase, audited (absent from older results). */
  providerPayments?: ProviderPaymentsResult;
  /** The overload fault's burst, drained and audited; null for every other fault. */
  overload: OverloadResult | null;
  faultStartSecond: number;
  faultEndSecond: number;
  notes: string[];
}

/** A fault as a phase runs it, on the rig it acts on (the proxies' rig, or the test hosts'). */
export interface PhaseFault<R extends SystemRig> {
  name: string;
  model: string;
  /** Seconds the fault is meant to last (0: an instant event such as a kill). */
  seconds(timings: FaultTimings): number;
  prepare?(rig: R): Promise<void>;
  inject(context: {
    rig: R;
    timings: FaultTimings;
    burst(seconds: number): Promise<string[]>;
  }): Promise<string[]>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const intakeRss = (rig: SystemRig): number =>
  Math.round(10 * childPids(rig.supervisorPid, "intake").reduce((sum, pid) => sum + rssMiB(pid), 0)) / 10;

export async function runFaultPhase<R extends SystemRig>(
  rig: R,
  fault: PhaseFault<R>,
  options: FaultPhaseOptions,
  firstSeq: number,
  keyPrefix: string,
): Promise<FaultResult> {
  await fault.prepare?.(rig);
  const client = new ShopClient({
    baseUrl: rig.system.baseUrl,
    identity: rig.system.identity,
    users: options.users,
    keyPrefix,
    firstSeq,
    connections: options.connections,
  });
  const referencePrefix = `${keyPrefix}-pp`;
  const providerOrders = new ProviderOrderClient({
    baseUrl: rig.system.baseUrl,
    identity: rig.system.identity,
    users: options.users,
    productId: options.productId,
    referencePrefix,
  });
  // Sampled once a second: applied backlog (keys answered 202 minus rows on the shards) and intake memory.
  const samples: { second: number; accepted: number; applied: number }[] = [];
  const rss: FaultResult["intakeRssMiB"] = { before: intakeRss(rig), peak: 0, after: 0, series: [] };
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const at = Date.now();
      const accepted = client.acceptedKeys;
      const applied = await rig.ledger.appliedSince(firstSeq).catch(() => null);
      if (applied !== null) samples.push({ second: client.second(at), accepted, applied });
      const mib = intakeRss(rig);
      rss.peak = Math.max(rss.peak, mib);
      rss.series.push({ second: client.second(at), mib });
      await sleep(Math.max(0, 1000 - (Date.now() - at)));
    }
  })();
  const backlogs = (lostBefore: (ms: number) => number = () => 0) => {
    const series: (number | null)[] = [];
    for (const sample of samples) {
      const at = client.startedMs + (sample.second + 1) * 1000;
      series[sample.second] = Math.max(0, sample.accepted - sample.applied - lostBefore(at));
    }
    return Array.from(series, (n) => n ?? null);
  };

  client.pace(options.rate);
  providerOrders.pace(options.providerOrderRate);
  await sleep(options.beforeSeconds * 1000);
  const faultStart = Date.now();
  log(`${fault.name}: injecting (${fault.model})`);
  let session: OverloadSession | null = null;
  const notes = await fault.inject({
    rig,
    timings: options.timings,
    burst: (seconds) => {
      if (options.overloadPlan === null) throw new Error(`${fault.name}: no overload plan was made`);
      session = new OverloadSession(rig, options.overloadPlan, `${keyPrefix}-burst`);
      return session.run(seconds);
    },
  });
  const faultEnd = Date.now();
  const faultStartSecond = client.second(faultStart);
  const faultEndSecond = client.second(faultEnd);
  log(
    `${fault.name}: fault over after ${((faultEnd - faultStart) / 1000).toFixed(1)} s; waiting for recovery`,
  );

  // The load goes on until recovered by the backlog rule, or (a backlog that will never drain: payments Redis
  // lost) until the 202s and the backlog have been steady for a while, or the timeout.
  const recoverDeadline = faultEnd + options.recoverTimeoutSeconds * 1000;
  while (Date.now() < recoverDeadline) {
    await sleep(1000);
    const complete = client.second(Date.now());
    const bins = client.bins.slice(0, complete);
    const series = backlogs();
    const input = { bins, backlog: series, rate: options.rate, faultStartSecond, faultEndSecond };
    if (secondsToRecover(input) !== null && complete - faultEndSecond >= RECOVERED_SECONDS + 2) break;
    // Not before the recovery rule could have said so for a backlog drained by then: at 20 s it stopped the
    // watch of a shard stopped 30 s whose backlog drained 11 s after the fault, one healthy second short.
    if (steady(input, 10) && complete - faultEndSecond >= 2 * RECOVERED_SECONDS + 10) break;
    const last = samples.at(-1);
    if (last) {
      log(
        `${fault.name}: +${complete - faultEndSecond} s after the fault, 202s last second ${bins.at(-1)?.accepted ?? 0}, backlog ${formatCount(last.accepted - last.applied)}`,
      );
    }
  }
  await Promise.all([client.stop(), providerOrders.stop()]);
  sampling = false;
  await sampler;
  rss.after = intakeRss(rig);

  const drain = await waitForDrain(rig, firstSeq, client.acceptedKeys, options.drainTimeoutSeconds);
  const rows = await rig.ledger.paymentRows(firstSeq, client.nextSeq - 1);
  const audit = auditFault(client.records, rows);
  const overload = (await (session as OverloadSession | null)?.settle(options.drainTimeoutSeconds)) ?? null;
  const providerPayments = await settleProviderPayments(rig, providerOrders, {
    orderRate: options.providerOrderRate,
    productId: options.productId,
    referencePrefix,
    drainTimeoutSeconds: options.drainTimeoutSeconds,
  });
  const walletInvariant = await rig.ledger.walletInvariant();
  // Payments the system lost never drain: the backlog is judged without them.
  const appliedSeqs = new Set(rows.map((row) => row.amount));
  const lostAcceptedAt = client.records
    .filter((record) => record.accepted && !appliedSeqs.has(record.seq))
    .map((record) => record.acceptedMs ?? 0);
  const lostBefore = (ms: number) => lostAcceptedAt.filter((at) => at <= ms).length;
  const series = backlogs(lostAcceptedAt.length > 0 ? lostBefore : undefined);
  const recovery = secondsToRecover({
    bins: client.bins,
    backlog: series,
    rate: options.rate,
    faultStartSecond,
    faultEndSecond,
  });
  const fiveXx = Object.entries(client.counts.statuses)
    .filter(([status]) => Number(status) >= 500)
    .reduce((sum, [, n]) => sum + n, 0);
  if (!drain) notes.push(`the backlog had not drained after ${options.drainTimeoutSeconds} s`);
  notes.push(
    `backlog bound for recovery ${formatCount(
      backlogBound(
        series.slice(0, faultStartSecond).filter((n): n is number => n !== null),
        options.rate,
      ),
    )}`,
  );
  return {
    name: fault.name,
    model: fault.model,
    offeredRate: options.rate,
    durationSeconds: fault.seconds(options.timings),
    faultSeconds: Math.round((faultEnd - faultStart) / 100) / 10,
    keys: audit.keys,
    accepted: audit.accepted,
    lost: audit.lost,
    appliedTwice: audit.appliedTwice,
    appliedWithoutAnswer: audit.appliedWithoutAnswer,
    fiveXx,
    clientRetries: client.counts.attempts - client.counts.keys,
    secondsToRecover: recovery,
    client: client.counts,
    audit,
    walletInvariant,
    drained: drain,
    intakeRssMiB: rss,
    timeline: client.bins.map((bin, second) => ({
      second,
      offered: bin.offered,
      accepted: bin.accepted,
      fiveXx: bin.fiveXx,
      backlog: series[second] ?? null,
      ...client.latencyAt(second),
    })),
    providerPayments,
    overload,
    faultStartSecond,
    faultEndSecond,
    notes,
  };
}

/** The last `seconds` complete seconds had 202s at the offered rate and a backlog that moved by under half a
 * second of load. */
function steady(
  input: { bins: readonly { accepted: number }[]; backlog: readonly (number | null)[]; rate: number },
  seconds: number,
): boolean {
  const bins = input.bins.slice(-seconds);
  const backlog = input.backlog.slice(-seconds).filter((n): n is number => n !== null);
  if (bins.length < seconds || backlog.length < seconds / 2) return false;
  const ratesOk = bins.every((bin) => bin.accepted >= 0.9 * input.rate);
  return ratesOk && Math.max(...backlog) - Math.min(...backlog) <= input.rate / 2;
}

/** Waits until every key answered 202 has its row, or nothing has moved for 45 s (a worker's unacknowledged
 * entries wait VISIBILITY_TIMEOUT_MS, 30 s, to be claimed), or the timeout. */
async function waitForDrain(
  rig: SystemRig,
  firstSeq: number,
  accepted: number,
  timeoutSeconds: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  let last = -1;
  let movedAt = Date.now();
  while (Date.now() < deadline) {
    const applied = await rig.ledger.appliedSince(firstSeq);
    if (applied >= accepted) return true;
    if (applied !== last) {
      last = applied;
      movedAt = Date.now();
    } else if (Date.now() - movedAt > 45_000) return false;
    await sleep(1000);
  }
  return false;
}
