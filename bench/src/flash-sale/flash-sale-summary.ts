// The flash sale's result: what the shoppers saw (joins, sockets, pushes, payments), what the room's records
// say (FIFO), what the probes met, and the round trips with limits on and off; then the checks issue 3 asks
// for, each with the figure it was judged on.

import type { DeliveryAudit } from "../audits/delivery-audit.ts";
import type { RoundTrips } from "../audits/redis-round-trips.ts";
import type { MintedTokens } from "../harness/bench-identity.ts";
import { type CpuUsage, describeCpuUsage } from "../harness/cpu-meter.ts";
import { formatLatency, type LatencySummary } from "../harness/latency-summary.ts";
import { describeListenQueueDrops, type ListenQueueDrops } from "../harness/listen-queue-meter.ts";
import type { LoopLateness } from "../harness/loop-lateness.ts";
import { formatCount } from "../harness/progress-line.ts";
import { type ResultHead, summaryHead } from "../harness/result-head.ts";
import type { FundingResult } from "../harness/wallet-funding.ts";
import type { CheckKind, SaleCheck } from "./flash-sale-check.ts";
import type { FifoAudit } from "./flash-sale-fifo.ts";
import type { ProbeCounts } from "./flash-sale-probe.ts";
import type { StockSaleRun } from "./stock-sale.ts";

export interface FlashSaleRun {
  joins: {
    offeredRate: number;
    /** Responses over activeS, or over the join schedule (--join-seconds) when they came back within it. */
    answeredRate: number;
    /** Seconds from each slice's start to its last answer (mean over the slices). */
    activeS: number;
    /** Seconds from the first slice's start to the last answer. */
    wallS: number;
    statusCounts: Record<string, number>;
    latencyMs: LatencySummary | null;
    /** Where the cpu went while the shoppers joined (null where /proc is not there). */
    cpu: CpuUsage | null;
    /** SYNs the kernel dropped for a full accept queue while the shoppers joined (absent in older results). */
    listenQueue?: ListenQueueDrops | null;
    /** How late the join thread's event loop ran (join-thread.ts): join times are read on that loop. */
    loadGeneratorLoopDelayMs?: LoopLateness;
    /** Shoppers whose paced join was shed (503) and who joined again a second later, and how each ended. */
    retried?: { shoppers: number; attempts: number; finalStatusCounts: Record<string, number> };
  };
  sockets: {
    watchers: number;
    opened: number;
    failed: number;
    peakOpen: number;
    withPosition: number;
    /** A stock sale's sockets opened after it sold out: told so first, with no place to show. */
    soldOutFirst?: number;
    /** Sockets the server closed without an error before their shopper learned its fate; it polled on. */
    closedEarly?: number;
    /** A stock sale's socket shoppers whose join came after it sold out (410): no ticket, no socket. */
    refusedSoldOut?: number;
    positionMessages: number;
  };
  pollers: { watchers: number; polls: number };
  admission: FifoAudit & {
    users: number;
    admitPerSecond: number;
    seconds: number | null;
    idealSeconds: number;
  };
  /** Admission made -> message received, for shoppers whose socket was open when they were admitted. */
  pushDelayMs: LatencySummary | null;
  /** WebSocket shoppers admitted while their socket was still connecting, and how long until it told them. */
  admittedBeforeSocketOpened: number;
  /** How late the crowd's loops ran from the first join to the last payment, the latest of its processes measure
   * by measure (--crowd-processes): its sockets, polls and payments are opened, read and timed there. */
  crowdLoopDelayMs?: LoopLateness;
  /** Client processes the crowd ran in (absent in results from before the crowd could be spread: one). */
  crowdProcesses?: number;
  /** SYNs dropped for a full accept queue from the first join until every shopper settled. */
  listenQueue?: ListenQueueDrops | null;
  connectAfterAdmissionMs: LatencySummary | null;
  /** Where a socket's connecting time goes: join answer -> WebSocket created (the crowd), created -> open (the
   * TCP connection and the upgrade, both ends). Optional: results written before these were measured lack them. */
  socketCreateAfterJoinMs?: LatencySummary | null;
  socketHandshakeMs?: LatencySummary | null;
  pollDiscoveryMs: LatencySummary | null;
  payments: {
    attempted: number;
    /** Final answers; a shed payment was sent again a second later (shed-retry.ts). */
    statusCounts: Record<string, number>;
    /** Each attempt's time added up, the waits between them left out. */
    latencyMs: LatencySummary | null;
    /** Shoppers whose payment was shed and sent again, and the requests that added (absent in older results). */
    retried?: { shoppers: number; attempts: number };
  };
  delivery: DeliveryAudit | null;
  allApplied: boolean;
  probes: ProbeCounts | null;
}

/** What one sale measured and checked: a single run's result holds one, a comparison's each sale. */
export interface SaleMeasures {
  funding: FundingResult | null;
  /** One customer token per shopper (and probe user), minted before the sale (not measured). */
  customerTokens: MintedTokens | null;
  sale: FlashSaleRun | null;
  /** --stock: the sale room's figures (units, admissions, sold-out pushes); null for a payments room. */
  stockSale?: StockSaleRun | null;
  roundTrips: { limitsOn: RoundTrips; limitsOff: RoundTrips } | null;
  checks: SaleCheck[];
}

/** A sale's measures before it has measured anything. */
export const noSaleMeasures = (): SaleMeasures => ({
  funding: null,
  customerTokens: null,
  sale: null,
  stockSale: null,
  roundTrips: null,
  checks: [],
});

export interface FlashSaleResult extends ResultHead<"flash-sale">, SaleMeasures {}

/** Issue 3's join rate. */
export const JOIN_RATE_TARGET = 5000;

/**
 * The joins pass when at least JOIN_RATE_TARGET/s were offered, the answers kept pace with them (>= 95% of the
 * offered rate, the rule --max uses for payments: pacing and the last answers' latency keep a perfect server
 * a little under the offered rate) and p99 < 50 ms.
 */
export function joinsKeptPace(joins: FlashSaleRun["joins"]): boolean {
  return (
    joins.offeredRate >= JOIN_RATE_TARGET &&
    joins.answeredRate >= joins.offeredRate * 0.95 &&
    (joins.latencyMs?.p99 ?? Number.POSITIVE_INFINITY) < 50
  );
}

/**
 * The checks of every flash sale. `everyoneAdmitted` false: a stock sale, which admits only as many shoppers as
 * there are units (stock-sale.ts checks those), so its admitted shoppers' payments are what must be applied.
 */
export function checkFlashSale(
  run: FlashSaleRun,
  roundTrips: FlashSaleResult["roundTrips"],
  { everyoneAdmitted = true }: { everyoneAdmitted?: boolean } = {},
) {
  const checks: SaleCheck[] = [];
  const check = (name: string, ok: boolean | null, detail: string, kind: CheckKind) =>
    checks.push({ name, ok, detail, kind });
  const noSockets = run.sockets.watchers === 0;
  const { sockets, admission, joins } = run;
  check(
    "WebSockets held with live positions",
    noSockets
      ? null
      : sockets.failed === 0 &&
          sockets.withPosition + (sockets.soldOutFirst ?? 0) === sockets.opened &&
          sockets.opened === sockets.watchers - (sockets.refusedSoldOut ?? 0),
    `${formatCount(sockets.opened)} of ${formatCount(sockets.watchers - (sockets.refusedSoldOut ?? 0))} opened${sockets.refusedSoldOut ? ` (${formatCount(sockets.refusedSoldOut)} more joined after the sale sold out: 410, no socket)` : ""}, ${formatCount(sockets.peakOpen)} open at once, ${formatCount(sockets.withPosition)} got a live position${sockets.soldOutFirst ? ` (${formatCount(sockets.soldOutFirst)} more opened after the sale sold out and were told so)` : ""}, ${sockets.failed} failed${sockets.closedEarly ? `, ${formatCount(sockets.closedEarly)} closed by the server before their shopper learned its fate (polled on)` : ""}`,
    // A socket that opens after its shopper's admission has no position to show: a loaded machine's miss.
    "performance",
  );
  check(
    "push delay p99 < 1 s",
    noSockets ? null : (run.pushDelayMs?.p99 ?? Number.POSITIVE_INFINITY) < 1000,
    `admission made -> message received, ${formatCount(run.pushDelayMs?.count ?? 0)} sockets open at admission: ${formatLatency(run.pushDelayMs)}`,
    "performance",
  );
  check(
    `joins at >= ${formatCount(JOIN_RATE_TARGET)}/s with p99 < 50 ms`,
    joinsKeptPace(joins),
    `${formatCount(joins.answeredRate)}/s answered (offered ${formatCount(joins.offeredRate)}/s; keeping pace means >= 95% of it, offered >= ${formatCount(JOIN_RATE_TARGET)}/s): ${formatLatency(joins.latencyMs)}`,
    "performance",
  );
  check(
    "zero FIFO inversions",
    admission.seqInversions === 0 && admission.joinOrderInversions === 0,
    `by sequence ${admission.seqInversions} (${formatCount(admission.admitted)} admissions), as shoppers joined ${admission.joinOrderInversions} (${formatCount(admission.joinOrderChecked)} joins checked; pre-queue joins are shuffled on purpose)`,
    "audit",
  );
  const admittedPaid = run.payments.statusCounts["202"] ?? 0;
  check(
    "every admitted user's payment applied once",
    (!everyoneAdmitted || admission.admitted === admission.users) &&
      admittedPaid === admission.admitted &&
      run.allApplied &&
      (run.delivery?.exactlyOnce ?? false),
    `${formatCount(admission.admitted)} of ${formatCount(admission.users)} admitted, ${formatCount(admittedPaid)} payments accepted, applied once ${formatCount(run.delivery?.appliedOnce ?? 0)} (missing ${run.delivery?.missing ?? "?"}, duplicated ${run.delivery?.duplicated ?? "?"})`,
    "audit",
  );
  check(
    "no 2xx on a guarded route without a valid token while the room queues",
    run.probes !== null && run.probes.sent > 0 && run.probes.admittedWithoutToken === 0,
    `${formatCount(run.probes?.sent ?? 0)} probes (no token, forged, another user's): ${JSON.stringify(run.probes?.byStatus ?? {})}`,
    "audit",
  );
  if (roundTrips) {
    check(
      "rate limiting adds no Redis round trip",
      // At most one each: fewer when payments arriving together share a script call (enqueue-batches.ts).
      atMostOne(roundTrips.limitsOn.perAccepted) && atMostOne(roundTrips.limitsOff.perAccepted),
      `Redis round trips per accepted payment: limits on ${roundTrips.limitsOn.perAccepted} (commands ${roundTrips.limitsOn.commandsPerAccepted ?? roundTrips.limitsOn.perAccepted}), off ${roundTrips.limitsOff.perAccepted}`,
      "audit",
    );
  }
  return checks;
}

export function summarizeFlashSale(result: FlashSaleResult): string[] {
  const lines = [
    ...summaryHead(result),
    "note: the shoppers (autocannon joins, WebSocket and polling clients, payers), intake, workers, Redis and Postgres all share these cpus.",
  ];
  const sale = result.sale;
  if (result.funding)
    lines.push(`funded ${formatCount(result.funding.users)} shoppers in ${result.funding.seconds} s`);
  if (result.customerTokens)
    lines.push(
      `minted ${formatCount(result.customerTokens.minted)} customer tokens in ${result.customerTokens.seconds.toFixed(1)} s (not measured)`,
    );
  if (sale) {
    const a = sale.admission;
    lines.push(
      `joins: ${formatCount(a.users)} shoppers offered at ${formatCount(sale.joins.offeredRate)}/s, answered ${formatCount(sale.joins.answeredRate)}/s (over ${sale.joins.activeS} s per slice, ${sale.joins.wallS} s wall); ${formatLatency(sale.joins.latencyMs)}; ${JSON.stringify(sale.joins.statusCounts)}`,
      ...(sale.joins.retried && sale.joins.retried.shoppers > 0
        ? [
            `  shed joins retried a second later: ${formatCount(sale.joins.retried.shoppers)} shoppers, ${formatCount(sale.joins.retried.attempts)} more requests, last answers ${JSON.stringify(sale.joins.retried.finalStatusCounts)}`,
          ]
        : []),
      `  while joining: ${describeCpuUsage(sale.joins.cpu)}`,
      `  accept queue while joining: ${describeListenQueueDrops(sale.joins.listenQueue)}; until all settled: ${describeListenQueueDrops(sale.listenQueue)}`,
      `  the join thread's event loop ran late by p50 ${sale.joins.loadGeneratorLoopDelayMs?.p50 ?? "?"} ms, p99 ${sale.joins.loadGeneratorLoopDelayMs?.p99 ?? "?"} ms, max ${sale.joins.loadGeneratorLoopDelayMs?.max ?? "?"} ms (join times are read on that loop)`,
      `sockets: ${formatCount(sale.sockets.opened)} opened of ${formatCount(sale.sockets.watchers)}, ${formatCount(sale.sockets.peakOpen)} open at once, ${formatCount(sale.sockets.withPosition)} with a live position (${formatCount(sale.sockets.positionMessages)} position messages); pollers ${formatCount(sale.pollers.watchers)} (${formatCount(sale.pollers.polls)} polls)`,
      `admission: ${formatCount(a.admitted)} admitted at ${formatCount(a.admitPerSecond)}/s in ${a.seconds ?? "?"} s (ideal ${a.idealSeconds} s = users / rate); inversions by sequence ${a.seqInversions}, as joined ${a.joinOrderInversions} (of ${formatCount(a.joinOrderChecked)} joins after the start)`,
      `push delay (WebSocket open at admission, admission -> message): ${formatLatency(sale.pushDelayMs)}`,
      `admitted while their socket was still connecting: ${formatCount(sale.admittedBeforeSocketOpened)} (admission -> the socket's first message: ${formatLatency(sale.connectAfterAdmissionMs)})`,
      `  join answer -> socket created: ${formatLatency(sale.socketCreateAfterJoinMs ?? null)}; created -> open (connect and upgrade): ${formatLatency(sale.socketHandshakeMs ?? null)}`,
      `  the crowd's event loop${(sale.crowdProcesses ?? 1) > 1 ? `s (${sale.crowdProcesses} processes, the latest of them)` : ""} (sockets, polls, payments) ran late by p50 ${sale.crowdLoopDelayMs?.p50 ?? "?"} ms, p99 ${sale.crowdLoopDelayMs?.p99 ?? "?"} ms, max ${sale.crowdLoopDelayMs?.max ?? "?"} ms`,
      `poll discovery (admission -> the next poll saw it): ${formatLatency(sale.pollDiscoveryMs)}`,
      `payments: ${formatCount(sale.payments.attempted)} sent, ${JSON.stringify(sale.payments.statusCounts)}; ${formatLatency(sale.payments.latencyMs)}; applied once ${formatCount(sale.delivery?.appliedOnce ?? 0)}, missing ${sale.delivery?.missing ?? "?"}, duplicated ${sale.delivery?.duplicated ?? "?"}`,
      ...(sale.payments.retried && sale.payments.retried.shoppers > 0
        ? [
            `  shed payments sent again a second later: ${formatCount(sale.payments.retried.shoppers)} shoppers, ${formatCount(sale.payments.retried.attempts)} more requests`,
          ]
        : []),
    );
  }
  const stock = result.stockSale;
  if (stock) {
    lines.push(
      `stock sale: ${formatCount(stock.stock)} units of ${stock.productId}; ${formatCount(stock.admitted)} admitted (margin ${stock.admitBeyondStock}); orders ${JSON.stringify(stock.orderStatusCounts)}; paid ${formatCount(stock.sales.paidUnits)} units in ${formatCount(stock.sales.paidOrders)} orders, oversold ${stock.oversold}`,
      `  sold out: ${formatCount(stock.toldSoldOut)} of ${formatCount(stock.waitingSockets)} waiting sockets told, last unit paid -> told ${formatLatency(stock.soldOutDelayMs)}; ${formatCount(stock.pollersToldSoldOut)} pollers told, ${formatCount(stock.joinsRefusedSoldOut)} joins refused 410`,
    );
  }
  if (result.roundTrips) {
    const { limitsOn, limitsOff } = result.roundTrips;
    lines.push(
      `Redis round trips per accepted payment: limits on ${limitsOn.perAccepted} (${formatCount(limitsOn.redisCommands)} commands, ${formatCount(limitsOn.parallelCommands ?? 0)} of them beside a script / ${formatCount(limitsOn.accepted)}), off ${limitsOff.perAccepted} (${formatCount(limitsOff.redisCommands)} / ${formatCount(limitsOff.accepted)})`,
    );
  }
  if (result.checks.length > 0) {
    lines.push(`checks: ${result.checks.every((c) => c.ok !== false) ? "all hold" : "SOME FAIL"}`);
    for (const c of result.checks) {
      lines.push(`    ${c.ok === null ? "n/a " : c.ok ? "ok  " : "FAIL"}   ${c.name}: ${c.detail}`);
    }
  }
  if (result.error) lines.push(`error: ${result.error}`);
  return lines;
}

const atMostOne = (perAccepted: number | null): boolean => perAccepted !== null && perAccepted <= 1;
