// The per-fault table the run prints, and the verdict: under `appendfsync always` (every fault but the two
// Redis restarts measured under other settings) nothing may be lost or applied twice, provider-paid orders
// included, and every wallet must add up; under any setting a provider charge is paid on its order or orphaned with
// its event, moves no wallet, and the product's stock adds up in Postgres.
import type { FaultName } from "./fault-catalogue.ts";
import type { FaultResult } from "./fault-phase.ts";
import { OFFERED_SHARE } from "./overload-session.ts";

/** The Redis persistence each fault ran under. */
export function redisSettingOf(name: FaultName | string): "always" | "everysec" | "none" {
  if (name === "redis-restart-everysec") return "everysec";
  if (name === "redis-restart-none") return "none";
  return "always";
}

/** Memory is bounded when it stops growing: the intakes' RSS over the burst's last third stays within this
 * share above its peak over the first two thirds (a queue growing with the overload grows to the end). */
export const RSS_GROWTH_LIMIT = 1.1;

/** The burst's RSS in its first two thirds and its last third (peaks, MiB); null without samples in both. */
export function burstRssPeaks(fault: FaultResult): { early: number; late: number } | null {
  const { faultStartSecond: start, faultEndSecond: end } = fault;
  const cut = start + Math.round(((end - start) * 2) / 3);
  const peak = (from: number, to: number) =>
    Math.max(
      0,
      ...fault.intakeRssMiB.series.filter((s) => s.second >= from && s.second < to).map((s) => s.mib),
    );
  const early = peak(start, cut);
  const late = peak(cut, end);
  return early > 0 && late > 0 ? { early, late } : null;
}

/** Why the overload fault did not pass (empty: it did): nothing lost or applied twice (shop and burst), no
 * timeout (shop and burst), the target offered, every refusal with Retry-After, memory that stops growing. */
export function overloadFailures(fault: FaultResult): string[] {
  const o = fault.overload ?? null;
  if (o === null) return fault.name === "overload" ? ["the overload burst did not run"] : [];
  const failures: string[] = [];
  const audit = o.audit;
  if (audit === null) failures.push("the burst was not audited");
  else {
    if (audit.lost > 0) failures.push(`${audit.lost} burst 2xx lost`);
    if (audit.twice > 0) failures.push(`${audit.twice} burst payments applied twice`);
    if (!audit.withinUnknown)
      failures.push(
        `${audit.appliedWithoutAnswer} burst payments applied without a 2xx, more than the ${audit.unknownOutcome} of unknown outcome (a refusal that was stored after all? the non-2xx said: ${JSON.stringify(o.counts.firstBodies ?? {})})`,
      );
  }
  if (o.counts.timeouts > 0) failures.push(`${o.counts.timeouts} burst timeouts`);
  if (fault.client.timeouts > 0) failures.push(`${fault.client.timeouts} shop client timeouts`);
  if (o.targetRate <= 0 || o.offeredRate < OFFERED_SHARE * o.targetRate)
    failures.push(
      `the generator could not offer ${o.targetRate}/s: it sent ${o.offeredRate}/s (${o.counts.notSent} arrivals not sent: their connection had ${o.maxUnansweredPerConnection} requests unanswered; cpu ${o.generatorCpu.percentOfOneCore} % of a core)`,
    );
  const rss = burstRssPeaks(fault);
  if (rss === null) failures.push("the intakes' memory was not sampled through the burst");
  else if (rss.late > RSS_GROWTH_LIMIT * rss.early)
    failures.push(
      `intake memory still growing: RSS peaked at ${rss.early} MiB over the burst's first two thirds and ${rss.late} MiB over its last third (limit x${RSS_GROWTH_LIMIT})`,
    );
  if (o.counts.refusalsWithRetryAfter < o.counts.refusals)
    failures.push(
      `${o.counts.refusals - o.counts.refusalsWithRetryAfter} of ${o.counts.refusals} 429/503 without Retry-After`,
    );
  return failures;
}

/** Why a fault's provider-paid orders did not pass (empty: they did, or the result has none). */
/** `lossCounted`: a fault whose losses are counted, not promised away (a cluster failover without WAIT). */
export function providerFailures(fault: FaultResult, lossCounted = false): string[] {
  const p = fault.providerPayments;
  if (!p) return [];
  const a = p.audit;
  const failures: string[] = [];
  if (redisSettingOf(fault.name) === "always") {
    if (a.lost > 0 && !lossCounted)
      failures.push(`${a.lost} provider payments lost (${a.examples.lost.join(", ")})`);
    if (a.appliedTwice > 0)
      failures.push(
        `${a.appliedTwice} provider payments applied twice (${a.examples.appliedTwice.join(", ")})`,
      );
  }
  if (a.paidNotRecorded > 0)
    failures.push(
      `${a.paidNotRecorded} provider charges half applied (${a.examples.paidNotRecorded.join(", ")})`,
    );
  if (a.orphanedWithoutEvent > 0)
    failures.push(
      `${a.orphanedWithoutEvent} orphaned provider charges without their event (${a.examples.orphanedWithoutEvent.join(", ")})`,
    );
  if (a.walletPayments > 0) failures.push(`${a.walletPayments} wallet payments for provider-paid orders`);
  if (p.stock === null) failures.push(`the product's stock was not checked: ${p.stockError}`);
  else if (!p.stock.postgresHolds)
    failures.push(
      `the product's stock does not add up (received ${p.stock.received}, stock ${p.stock.stock}, live order units ${p.stock.liveOrderUnits}, ledger ${p.stock.ledgerUnits})`,
    );
  return failures;
}

/** `lossCounted` as for providerFailures: a loss counted, not a failure. */
export function providerLine(fault: FaultResult, lossCounted = false): string {
  const p = fault.providerPayments;
  if (!p) return `${fault.name}: provider payments: none`;
  const a = p.audit;
  const failures = providerFailures(fault, lossCounted);
  return `${fault.name}: provider payments: orders ${p.counts.ordersAccepted}/${p.counts.orders} accepted, charges ${a.accepted}/${a.keys} accepted, lost ${a.lost}, applied twice ${a.appliedTwice}, provider-paid ${a.providerPaid}, orphaned ${a.orphaned} (without event ${a.orphanedWithoutEvent}), duplicates ${a.duplicates}, half applied ${a.paidNotRecorded}, wallet payments ${a.walletPayments}, failures ${JSON.stringify(a.failureReasons)}, stock ${p.stock === null ? "unchecked" : p.stock.postgresHolds ? "ok" : "OFF"}; ${failures.length === 0 ? "passed" : `FAILED: ${failures.join("; ")}`}`;
}

/** `lossCounted`: the faults whose lost payments are counted, not a failure (applied twice still is). */
export function verdict(
  faults: readonly FaultResult[],
  lossCounted: ReadonlySet<string> = new Set(),
): string | null {
  const failures = [
    ...faults.flatMap((fault) => overloadFailures(fault).map((why) => `overload: ${why}`)),
    ...faults.flatMap((fault) =>
      providerFailures(fault, lossCounted.has(fault.name)).map((why) => `${fault.name}: ${why}`),
    ),
  ];
  const broken = faults.filter(
    (fault) =>
      (redisSettingOf(fault.name) === "always" &&
        ((fault.lost > 0 && !lossCounted.has(fault.name)) || fault.appliedTwice > 0)) ||
      !fault.walletInvariant.holds,
  );
  if (broken.length === 0) return failures.length === 0 ? null : failures.join("; ");
  return `${failures.map((why) => `${why}; `).join("")}under appendfsync always a payment was lost or applied twice, or a wallet does not add up: ${broken
    .map(
      (fault) =>
        `${fault.name} (lost ${fault.lost}, twice ${fault.appliedTwice}, wallets ${fault.walletInvariant.holds ? "ok" : `off by ${fault.walletInvariant.difference}`})`,
    )
    .join(", ")}`;
}

const pad = (text: string | number, width: number) => String(text).padStart(width);

export function faultsTable(faults: readonly FaultResult[]): string[] {
  const header = `${"fault".padEnd(24)}${pad("redis", 9)}${pad("keys", 8)}${pad("accepted", 10)}${pad("lost", 6)}${pad("twice", 7)}${pad("no-answer", 11)}${pad("5xx", 7)}${pad("retries", 9)}${pad("recover s", 11)}  wallets`;
  return [
    header,
    ...faults.map(
      (fault) =>
        `${fault.name.padEnd(24)}${pad(redisSettingOf(fault.name), 9)}${pad(fault.keys, 8)}${pad(fault.accepted, 10)}${pad(fault.lost, 6)}${pad(fault.appliedTwice, 7)}${pad(fault.appliedWithoutAnswer, 11)}${pad(fault.fiveXx, 7)}${pad(fault.clientRetries, 9)}${pad(fault.secondsToRecover ?? "-", 11)}  ${fault.walletInvariant.holds ? "ok" : "OFF"}`,
    ),
  ];
}

export function overloadLines(fault: FaultResult | undefined): string[] {
  if (!fault) return [];
  const o = fault.overload;
  const peaks = burstRssPeaks(fault);
  const rss = `intake RSS ${fault.intakeRssMiB.before} -> peak ${fault.intakeRssMiB.peak} -> ${fault.intakeRssMiB.after} MiB${peaks === null ? "" : ` (burst peaks: first two thirds ${peaks.early}, last third ${peaks.late})`}`;
  if (o === null) return [`overload: the burst did not run; ${rss}`];
  const c = o.counts;
  const audit = o.audit;
  const failures = overloadFailures(fault);
  return [
    `overload: sustainable ${o.sustainableRate ?? "-"}/s, target ${o.targetRate}/s (${o.basis}); offered (sent) ${o.offeredRate}/s = ${o.achievedFactor ?? "-"} x sustainable, not sent ${c.notSent}; answered ${o.answeredRate}/s, 2xx ${o.acceptedRate}/s; answers ${JSON.stringify(c.statuses)}`,
    `overload: 429/503 ${c.refusals} (${o.refusalsWithRetryAfterPercent === null ? "-" : `${o.refusalsWithRetryAfterPercent} % with Retry-After`}); burst timeouts ${c.timeouts}, socket errors ${c.socketErrors}, 503 store unavailable ${c.storeUnavailable ?? 0}; shop timeouts ${fault.client.timeouts}; burst p99 ${o.latencyMs.p99 ?? "-"} ms; generator cpu ${o.generatorCpu.percentOfOneCore} % of a core; ${rss}`,
    `overload: burst audit ${audit === null ? "-" : `${audit.accepted} 2xx, lost ${audit.lost}, twice ${audit.twice}, applied without a 2xx ${audit.appliedWithoutAnswer} (unknown outcome ${audit.unknownOutcome})`}; ${failures.length === 0 ? "passed" : `FAILED: ${failures.join("; ")}`}`,
  ];
}
