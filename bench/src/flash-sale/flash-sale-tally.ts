// What one flash sale's shoppers saw, counted into the run's figures (FlashSaleRun): the joins' rate and
// latency, the sockets and their pushes, the polls, the admissions against the room's records, the payments
// and their audit on the shards.
import type { DeliveryOutcome } from "../audits/delivery-wait.ts";
import type { CpuUsage } from "../harness/cpu-meter.ts";
import { summarizeLatencies } from "../harness/latency-summary.ts";
import type { ListenQueueDrops } from "../harness/listen-queue-meter.ts";
import type { LoadOutcome } from "../harness/load-runner.ts";
import type { LoopLateness } from "../harness/loop-lateness.ts";
import type { Crowd, Shopper } from "./flash-sale-crowd.ts";
import type { FifoAudit } from "./flash-sale-fifo.ts";
import type { FlashSaleOptions } from "./flash-sale-options.ts";
import type { ProbeCounts } from "./flash-sale-probe.ts";
import type { FlashSaleRun } from "./flash-sale-summary.ts";

export interface SaleObservations {
  options: FlashSaleOptions;
  crowd: Crowd;
  joins: LoadOutcome;
  joinCpu: CpuUsage | null;
  /** SYNs the kernel dropped for a full accept queue while the shoppers joined, and from the first join until all settled. */
  joinListenDrops: ListenQueueDrops | null;
  saleListenDrops: ListenQueueDrops | null;
  crowdLoopDelayMs: LoopLateness;
  fifo: FifoAudit;
  delivery: DeliveryOutcome;
  probes: ProbeCounts;
}

const statusCounts = (values: (number | null)[]) =>
  values.reduce<Record<string, number>>((counts, value) => {
    const key = String(value ?? "none");
    counts[key] = (counts[key] ?? 0) + 1;
    return counts;
  }, {});

/** Admission made -> noticed, for the shoppers who noticed. */
const noticeDelays = (watchers: readonly Shopper[]) =>
  summarizeLatencies(
    watchers.flatMap((s) =>
      s.noticedAt !== null && s.admittedAt !== null ? [s.noticedAt - s.admittedAt] : [],
    ),
  );

export function tallySale(seen: SaleObservations): FlashSaleRun {
  const { options, crowd, joins, fifo } = seen;
  const shoppers = crowd.shoppers;
  const sockets = shoppers.filter((s) => s.watch === "websocket");
  const pollers = shoppers.filter((s) => s.watch === "polling");
  // A push needs an open socket: a shopper admitted while its socket was still connecting learns of it in
  // the socket's first message, which measures the connection, not the push.
  const pushed = new Set(
    sockets.filter(
      (s) => s.socketOpenedAt !== null && s.admittedAt !== null && s.socketOpenedAt < s.admittedAt,
    ),
  );
  const connectedLate = sockets.filter((s) => s.admittedAt !== null && !pushed.has(s));
  const again = shoppers.filter((s) => s.joinAttempts > 1);
  const paying = shoppers.filter((s) => s.paymentStatus !== null);
  const paidAgain = paying.filter((s) => s.paymentAttempts > 1);
  return {
    joins: {
      offeredRate: Math.ceil(options.users / options.joinSeconds),
      // Over each slice's own time (the slices start 1/slices s apart, so the wall time from the first
      // start overstates a 2 s join phase by up to half), and never over less than the schedule: autocannon
      // sends each second's quota at the start of the second, so a server that keeps pace finishes a
      // little before --join-seconds, which says nothing of a rate above the offered one.
      answeredRate: Math.round(joins.responses / Math.max(options.joinSeconds, joins.activeS)),
      activeS: joins.activeS,
      wallS: Math.round((joins.finishedAt - joins.startedAt) / 10) / 100,
      statusCounts: joins.statusCounts,
      latencyMs: summarizeLatencies(joins.latencies),
      cpu: seen.joinCpu,
      listenQueue: seen.joinListenDrops,
      loadGeneratorLoopDelayMs: joins.loopDelayMs,
      retried: {
        shoppers: again.length,
        attempts: again.reduce((n, s) => n + s.joinAttempts - 1, 0),
        finalStatusCounts: statusCounts(again.map((s) => s.joinStatus)),
      },
    },
    sockets: {
      watchers: sockets.length,
      // A stock sale's late shoppers find it sold out at the join (410): they never wait, so open no socket.
      refusedSoldOut: sockets.filter((s) => s.joinStatus === 410).length,
      ...crowd.sockets,
      positionMessages: sockets.reduce((n, s) => n + s.updates, 0),
    },
    pollers: { watchers: pollers.length, polls: pollers.reduce((n, s) => n + s.updates, 0) },
    admission: {
      ...fifo,
      users: options.users,
      admitPerSecond: options.admit,
      seconds:
        fifo.firstAdmittedAt !== null && fifo.lastAdmittedAt !== null
          ? Math.round((fifo.lastAdmittedAt - fifo.firstAdmittedAt) / 10) / 100
          : null,
      idealSeconds: options.users / options.admit,
    },
    pushDelayMs: noticeDelays([...pushed]),
    admittedBeforeSocketOpened: connectedLate.length,
    crowdLoopDelayMs: seen.crowdLoopDelayMs,
    crowdProcesses: options.crowdProcesses,
    listenQueue: seen.saleListenDrops,
    connectAfterAdmissionMs: noticeDelays(connectedLate),
    socketCreateAfterJoinMs: summarizeLatencies(
      sockets.flatMap((s) => (s.socketRequestedAt !== null ? [s.socketRequestedAt - s.joinAnsweredAt] : [])),
    ),
    socketHandshakeMs: summarizeLatencies(
      sockets.flatMap((s) =>
        s.socketRequestedAt !== null && s.socketOpenedAt !== null
          ? [s.socketOpenedAt - s.socketRequestedAt]
          : [],
      ),
    ),
    pollDiscoveryMs: noticeDelays(pollers),
    payments: {
      attempted: paying.length,
      statusCounts: statusCounts(paying.map((s) => s.paymentStatus)),
      latencyMs: summarizeLatencies(
        shoppers.flatMap((s) => (s.paymentLatencyMs === null ? [] : [s.paymentLatencyMs])),
      ),
      retried: {
        shoppers: paidAgain.length,
        attempts: paidAgain.reduce((n, s) => n + s.paymentAttempts - 1, 0),
      },
    },
    delivery: seen.delivery.audit,
    allApplied: seen.delivery.allApplied,
    probes: seen.probes,
  };
}
