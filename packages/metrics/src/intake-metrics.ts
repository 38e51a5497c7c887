import { Counter, collectDefaultMetrics, Gauge, Registry } from "prom-client";
import { createAdmissionMetrics } from "./admission-metrics.ts";
import { counterTotal } from "./counter-total.ts";
import { PendingCounts } from "./pending-counts.ts";
import { RequestTimes } from "./request-times.ts";

export function createIntakeMetrics(registry = new Registry()) {
  // Node's own names (process_cpu_seconds_total, nodejs_eventloop_lag_seconds, ...), unprefixed: stock Node
  // dashboards and alerts match them; the scrape job's labels tell an intake from a worker.
  collectDefaultMetrics({ register: registry });
  const accepted: Counter<"kind" | "outcome"> = new Counter({
    name: "floodgate_intake_accepted_total",
    help: "Operations accepted (202) by kind; replays of an Idempotency-Key are counted apart",
    labelNames: ["kind", "outcome"] as const,
    registers: [registry],
    // Every read first adds the counts still pending (acceptedCounts).
    collect: (): void => acceptedCounts.flush(),
  });
  const acceptedCounts = new PendingCounts(accepted);
  const redisCommands = new Counter({
    name: "floodgate_intake_redis_commands_total",
    help: "Commands the intake sent to Redis on its request connection, every one (those sent beside a request's script are also in floodgate_intake_redis_parallel_commands_total)",
    registers: [registry],
  });
  // A client address's token has a slot of its own, so it cannot be in the route's script: it is a second
  // command, sent in the same tick (same write on one Redis, in parallel on a cluster), not a second round trip.
  const redisParallelCommands = new Counter({
    name: "floodgate_intake_redis_parallel_commands_total",
    help: "Commands the intake sent on its request connection beside a request's script, in the same round trip (client-address rate-limit tokens); round trips = commands - these",
    registers: [registry],
  });
  new Gauge({
    name: "floodgate_intake_redis_round_trips_per_accepted_request",
    help: "Redis round trips per accepted request since start: commands less those sent beside a script, over accepted requests (reads and probes included: at most 1.0 under a write-only load, less when requests arriving together share a script call)",
    registers: [registry],
    async collect() {
      const total = await counterTotal(accepted);
      const roundTrips = (await counterTotal(redisCommands)) - (await counterTotal(redisParallelCommands));
      this.set(total === 0 ? 0 : roundTrips / total);
    },
  });
  // Several intake processes share one port: a scrape says which process answered.
  new Gauge({
    name: "floodgate_intake_process_info",
    help: "1, labelled with this intake process's pid (INTAKE_METRICS_PORT + i serves each process's own metrics)",
    labelNames: ["pid"] as const,
    registers: [registry],
  }).set({ pid: String(process.pid) }, 1);
  // Not a prom-client Histogram: request-times.ts says why, and answers the same.
  const requestTimes = new RequestTimes({
    name: "floodgate_http_request_duration_seconds",
    help: "Intake request latency by route and status code",
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registry,
  });
  return {
    registry,
    accepted,
    /** One more accepted request of `kind` (outcome: accepted, or replayed from its Idempotency-Key). */
    countAccepted(kind: string, outcome: string): void {
      acceptedCounts.add(kind, outcome);
    },
    redisCommands,
    redisParallelCommands,
    admission: createAdmissionMetrics(registry),
    replicaWaitShortfalls: new Counter({
      name: "floodgate_intake_replica_wait_shortfalls_total",
      help: "Accepted requests answered 503 because fewer than REDIS_WAIT_REPLICAS replicas confirmed them within REDIS_WAIT_TIMEOUT_MS (stored on the master, outcome unknown to the client until it retries)",
      registers: [registry],
    }),
    shedRequests: new Counter({
      name: "floodgate_intake_shed_requests_total",
      help: "API calls answered 503 busy because this process's event loop or Redis was late (LOAD_SHED_LOOP_DELAY_MS, LOAD_SHED_REDIS_WAIT_MS)",
      registers: [registry],
    }),
    // 1 from the start, not prom-client's 0: a process that never sheds (LOAD_SHED_* both 0) admits every
    // call, and an alert on a share below 1 must not fire for it.
    admittedShare: admittedShare(registry),
    couponIssueDecisions: new Counter({
      name: "floodgate_coupon_issue_decisions_total",
      help: "Coupon issue requests by outcome: accepted, already_issued, sold_out, not_open, unknown_coupon (404), state_missing (503)",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    orderDecisions: new Counter({
      name: "floodgate_order_reservations_total",
      help: "Order reservations by outcome: accepted, replayed, out_of_stock, unit_limit_exceeded, unknown_product, unknown_coupon, coupon_not_yours, coupon_used, amount_too_large, conflict",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    orderEndRequests: new Counter({
      name: "floodgate_order_end_requests_total",
      help: "Requests to end an order by reason (cancelled, expired) and outcome (requested, already_requested, unknown_order, already_ended)",
      labelNames: ["reason", "outcome"] as const,
      registers: [registry],
    }),
    couponDefinitionLoads: new Counter({
      name: "floodgate_coupon_definition_loads_total",
      help: "Coupon definitions read from the global database (cache misses; definitions never change, so each is read once per process)",
      registers: [registry],
    }),
    /** Each request's latency, by method, route and status (floodgate_http_request_duration_seconds). */
    requestTimes,
  };
}

function admittedShare(registry: Registry): Gauge {
  const gauge = new Gauge({
    name: "floodgate_intake_admitted_share",
    help: "Share of API calls this process admits (1: all, also when load shedding is off; below 1 while it sheds load)",
    registers: [registry],
  });
  gauge.set(1);
  return gauge;
}

export type IntakeMetrics = ReturnType<typeof createIntakeMetrics>;
