// The delivery jobs: one BullMQ job per (event, endpoint), run WEBHOOK_CONCURRENCY at a time per worker
// process, apart from the batches (a receiver that hangs holds a delivery slot, never a shard's lane). Each
// attempt is recorded on its delivery row (the deliveries route shows them); a failure throws, so BullMQ
// retries it on the schedule of retry-schedule.ts, until the last attempt gives up.
import type { Config } from "@floodgate/config";
import type { GlobalDatabase } from "@floodgate/db";
import { SECRET_ROTATION_OVERLAP_HOURS } from "@floodgate/domain";
import type { WorkerMetrics } from "@floodgate/metrics";
import type { RedisConnection } from "@floodgate/redis-connections";
import { type Job, Worker } from "bullmq";
import { type Kysely, sql } from "kysely";
import type { Logger } from "pino";
import { deliverOnce } from "./delivery-request.ts";
import { retryDelayMs } from "./retry-schedule.ts";

export const WEBHOOK_QUEUE = "webhook-deliveries";

export interface DeliveryJob {
  deliveryId: string;
  /** Asked for again by the shop: sent even if an earlier attempt was delivered. */
  redeliver?: boolean;
}

export interface DeliveryWorkerDependencies {
  config: Config;
  log: Logger;
  metrics: WorkerMetrics;
  global: Kysely<GlobalDatabase>;
  connection: RedisConnection;
  prefix: string;
}

export function startDeliveryWorker(deps: DeliveryWorkerDependencies): Worker<DeliveryJob> {
  const { config, log } = deps;
  const worker = new Worker<DeliveryJob>(WEBHOOK_QUEUE, (job) => runDelivery(deps, job), {
    connection: deps.connection,
    prefix: deps.prefix,
    concurrency: config.webhooks.concurrency,
    // A worker killed mid-request leaves its job stalled; another takes it over. BullMQ's default fails a job
    // stalled twice, which here would strand a delivery: a few more kills are allowed.
    maxStalledCount: 10,
    settings: { backoffStrategy: (attemptsMade) => retryDelayMs(config.webhooks.retryBaseMs, attemptsMade) },
  });
  worker.on("error", (error) => log.warn({ err: error.message }, "webhook delivery worker error"));
  return worker;
}

async function runDelivery(deps: DeliveryWorkerDependencies, job: Job<DeliveryJob>): Promise<string> {
  const { global, config, metrics } = deps;
  const row = await global
    .selectFrom("webhook_deliveries as d")
    .innerJoin("webhook_endpoints as e", "e.id", "d.endpoint_id")
    .select([
      "d.id",
      "d.event_id",
      "d.payload",
      "d.attempts",
      "d.delivered_at",
      "e.url",
      "e.secret",
      "e.enabled",
      "e.signature_scheme",
      // The database's clock decides, as it stamped the rotation (rotate-secret).
      sql<
        string | null
      >`case when e.secret_rotated_at > now() - make_interval(hours => ${SECRET_ROTATION_OVERLAP_HOURS})
        then e.previous_secret end`.as("previous_secret"),
    ])
    .where("d.id", "=", job.data.deliveryId)
    .executeTakeFirst();
  if (row === undefined) return "endpoint deleted";
  if (row.delivered_at !== null && !job.data.redeliver) return "already delivered";
  if (!row.enabled) {
    // Not an attempt: the delivery waits, and POST /v1/webhook-deliveries/:id/redeliver sends it once enabled.
    await global
      .updateTable("webhook_deliveries")
      .set({ last_error: "endpoint disabled", next_attempt_at: null })
      .where("id", "=", row.id)
      .execute();
    return "endpoint disabled";
  }
  const result = await deliverOnce(
    {
      url: row.url,
      scheme: row.signature_scheme,
      secrets: row.previous_secret === null ? [row.secret] : [row.secret, row.previous_secret],
      eventId: row.event_id,
      payload: row.payload,
    },
    { timeoutMs: config.webhooks.timeoutMs, allowPrivate: config.webhooks.allowPrivate },
  );
  const attempt = job.attemptsMade + 1; // this job's attempt (attemptsMade counts the failed ones before it)
  const last = attempt >= (job.opts.attempts ?? 1);
  const now = Date.now();
  await global
    .updateTable("webhook_deliveries")
    .set((eb) => ({
      attempts: eb("attempts", "+", 1),
      last_status_code: result.statusCode,
      last_error: result.ok ? null : result.error,
      delivered_at: result.ok ? new Date(now) : null,
      next_attempt_at:
        result.ok || last ? null : new Date(now + retryDelayMs(config.webhooks.retryBaseMs, attempt)),
      gave_up_at: !result.ok && last ? new Date(now) : null,
    }))
    .where("id", "=", row.id)
    .execute();
  if (result.ok) {
    metrics.webhookDeliveries.inc({ outcome: "delivered" });
    return `delivered: ${result.statusCode}`;
  }
  metrics.webhookDeliveries.inc({ outcome: last ? "gave_up" : "failed_attempt" });
  if (last) {
    deps.log.warn(
      { deliveryId: row.id, eventId: row.event_id, attempts: attempt, err: result.error },
      "webhook delivery gave up; POST /v1/webhook-deliveries/:id/redeliver sends it again",
    );
  }
  // Thrown for BullMQ to retry on the schedule (the row says when).
  throw new Error(result.error);
}
