import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { counterTotal } from "./counter-total.ts";

export function createWorkerMetrics(registry = new Registry()) {
  // Node's own names (process_cpu_seconds_total, nodejs_eventloop_lag_seconds, ...), unprefixed: stock Node
  // dashboards and alerts match them; the scrape job's labels tell an intake from a worker.
  collectDefaultMetrics({ register: registry });
  const applied = new Counter({
    name: "floodgate_operations_applied_total",
    help: "Operations committed to a shard, by kind and final status",
    labelNames: ["kind", "status"] as const,
    registers: [registry],
  });
  const sqlStatements = new Counter({
    name: "floodgate_sql_statements_total",
    help: "SQL statements sent to shards, BEGIN and COMMIT included",
    registers: [registry],
  });
  const orderSqlStatements = new Counter({
    name: "floodgate_order_sql_statements_total",
    help: "SQL statements spent on orders: their shard inserts, coupon redemptions, ends, and the global stock statement (one per batch)",
    registers: [registry],
  });
  new Gauge({
    name: "floodgate_sql_statements_per_order",
    help: "SQL statements spent on orders per order recorded since start (batching keeps this far below 1 under load)",
    registers: [registry],
    async collect() {
      const { values } = await applied.get();
      const orders = values.filter((v) => v.labels.kind === "order").reduce((n, v) => n + v.value, 0);
      this.set(orders === 0 ? 0 : (await counterTotal(orderSqlStatements)) / orders);
    },
  });
  new Gauge({
    name: "floodgate_sql_statements_per_applied_operation",
    help: "SQL statements sent per operation applied since start (batching makes this far below 1)",
    registers: [registry],
    async collect() {
      const total = await counterTotal(applied);
      this.set(total === 0 ? 0 : (await counterTotal(sqlStatements)) / total);
    },
  });
  return {
    registry,
    applied,
    sqlStatements,
    orderSqlStatements,
    batchSize: new Histogram({
      name: "floodgate_worker_batch_size",
      help: "Stream entries per batch",
      buckets: [1, 10, 50, 100, 250, 500, 1000, 2500, 5000],
      registers: [registry],
    }),
    batchSeconds: new Histogram({
      name: "floodgate_worker_batch_duration_seconds",
      help: "Time to apply one batch (all shards) and acknowledge it",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    ordersEnded: new Counter({
      name: "floodgate_orders_ended_total",
      help: "Orders that ended without a sale, by status (cancelled, expired, failed); their stock and coupon went back",
      labelNames: ["status"] as const,
      registers: [registry],
    }),
    ordersPaid: new Counter({
      name: "floodgate_orders_paid_total",
      help: "Orders marked paid in the same shard transaction as their payment's debit",
      registers: [registry],
    }),
    orderExpiries: new Counter({
      name: "floodgate_order_expiries_total",
      help: "Unpaid orders whose expiry fired (BullMQ delayed jobs, one per batch of orders), by outcome: requested (an end request was queued), already_requested (a cancel came first), already_ended, unknown_order",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    duplicates: new Counter({
      name: "floodgate_operations_redelivered_total",
      help: "Redelivered operations found already applied (not applied again)",
      registers: [registry],
    }),
    deadLettered: new Counter({
      name: "floodgate_operations_dead_lettered_total",
      help: "Messages moved to the dead-letter stream",
      registers: [registry],
    }),
    unconfirmedEntries: new Counter({
      name: "floodgate_worker_unconfirmed_entries_total",
      help: "Stream entries read but held unapplied because fewer than REDIS_WAIT_REPLICAS replicas of their master confirmed them within REDIS_WAIT_TIMEOUT_MS (confirmed again with the next reads while their master is the same; else claimed again after VISIBILITY_TIMEOUT_MS)",
      registers: [registry],
    }),
    shardRetries: new Counter({
      name: "floodgate_shard_retries_total",
      help: "Shard transactions retried because the shard was unreachable or busy",
      labelNames: ["shard"] as const,
      registers: [registry],
    }),
    webhookDeliveries: new Counter({
      name: "floodgate_webhook_deliveries_total",
      help: "Webhook delivery attempts by outcome: delivered (2xx), failed_attempt (retried later), gave_up (the last attempt, about three days on, failed too)",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    webhookOldestUndelivered: new Gauge({
      name: "floodgate_webhook_oldest_undelivered_seconds",
      help: "Age of the oldest webhook delivery neither delivered nor given up (0 when none), as this worker last read it",
      registers: [registry],
    }),
    endToEndSeconds: new Histogram({
      name: "floodgate_end_to_end_seconds",
      help: "From acceptance at the intake to the shard commit",
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
      registers: [registry],
    }),
  };
}

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;
