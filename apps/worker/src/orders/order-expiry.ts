// Unpaid orders expire through BullMQ delayed jobs, one per batch of orders that began awaiting payment
// together (one job per order cost Redis more than the order itself at a few thousand orders/s). A job fires
// at the latest expiresAt of its orders, so none ends early, and none waits longer than its batch took to
// form. When it fires it does not touch the orders: it queues an end request for each on the order's
// partition stream (request-order-end-3.lua), so the expiry is ordered with the order's payment and the
// shard decides which came first. Ending is idempotent, so a job added twice (a redelivered batch) or retried
// by BullMQ after a partial failure changes nothing twice.
import { createHash } from "node:crypto";
import type { Config } from "@floodgate/config";
import type { WorkerMetrics } from "@floodgate/metrics";
import type { QueueKeys } from "@floodgate/queue";
import {
  createJobQueueConnection,
  type RedisConnection,
  type ScriptedRedis,
} from "@floodgate/redis-connections";
import { requestOrderEnd } from "@floodgate/reservations";
import { type Job, Queue, Worker } from "bullmq";
import type { Logger } from "pino";
import { bullPrefix } from "../job-queue-prefix.ts";
import { LegacyJobDrain } from "../legacy-job-drain.ts";
import type { AwaitingOrder } from "./order-outcomes.ts";

export const ORDER_EXPIRY_QUEUE = "order-expiry";

/** `orderId`: a job added before expiries were batched (still pending after an upgrade). */
type ExpiryJob = { orderIds: string[] } | { orderId: string };

/** Orders per job: a retry repeats the whole job, so it stays small. */
const ORDERS_PER_JOB = 500;

/**
 * A chunk's job id names every order in it: the same chunk (a redelivered batch) gets the same id, which BullMQ
 * adds once, while a different chunk never collides with it (an id made of the first order and the count did:
 * a reclaimed order heading a new chunk of the same size left that chunk's other orders with no expiry). No ":"
 * (BullMQ's key separator).
 */
export function expiryJobId(sortedOrderIds: readonly string[]): string {
  return `expire-${createHash("sha256").update(sortedOrderIds.join(",")).digest("base64url")}`;
}

export class OrderExpiry {
  readonly #queue: Queue<ExpiryJob>;
  readonly #connections: RedisConnection[] = [];
  #worker: Worker<ExpiryJob> | undefined;
  #legacy: LegacyJobDrain | undefined;
  readonly #config: Config;
  readonly #log: Logger;

  constructor(config: Config, log: Logger) {
    this.#config = config;
    this.#log = log;
    const connection = this.#connection(false);
    this.#queue = new Queue<ExpiryJob>(ORDER_EXPIRY_QUEUE, {
      connection,
      prefix: bullPrefix(config, ORDER_EXPIRY_QUEUE),
    });
    this.#queue.on("error", (error) => log.warn({ err: error.message }, "order expiry queue error"));
  }

  #connection(blocking: boolean): RedisConnection {
    const redis = createJobQueueConnection(this.#config.redisUrl, {
      name: `floodgate-order-expiry${blocking ? "-worker" : ""}`,
      blocking,
    });
    redis.on("error", (error) => this.#log.warn({ err: error.message }, "order expiry redis error"));
    this.#connections.push(redis);
    return redis;
  }

  /** One round trip for the batch's orders: a job per ORDERS_PER_JOB of them. */
  async schedule(orders: AwaitingOrder[]): Promise<void> {
    if (orders.length === 0) return;
    const now = Date.now();
    const sorted = [...orders].sort((a, b) => (a.orderId < b.orderId ? -1 : a.orderId > b.orderId ? 1 : 0));
    const jobs = [];
    for (let start = 0; start < sorted.length; start += ORDERS_PER_JOB) {
      const chunk = sorted.slice(start, start + ORDERS_PER_JOB);
      const dueAt = Math.max(...chunk.map((order) => order.expiresAt));
      jobs.push({
        name: "expire",
        data: { orderIds: chunk.map((order) => order.orderId) },
        opts: {
          jobId: expiryJobId(chunk.map((order) => order.orderId)),
          delay: Math.max(0, dueAt - now),
          attempts: 10,
          backoff: { type: "exponential", delay: 1000 },
          removeOnComplete: true,
          removeOnFail: 1000,
        },
      });
    }
    await this.#queue.addBulk(jobs);
  }

  /**
   * Fires the due jobs in this process (every worker process runs one; BullMQ hands each job to one), and the
   * jobs a previous release left under the old prefix (legacy-job-drain.ts).
   */
  startFiring(redis: ScriptedRedis, keys: QueueKeys, metrics: WorkerMetrics): void {
    const start = (prefix: string, connection: RedisConnection) =>
      this.#startWorker(prefix, connection, (job) => this.#fire(job, redis, keys, metrics));
    this.#worker = start(bullPrefix(this.#config, ORDER_EXPIRY_QUEUE), this.#connection(true));
    this.#legacy = new LegacyJobDrain({
      config: this.#config,
      log: this.#log,
      queue: ORDER_EXPIRY_QUEUE,
      startWorker: start,
    });
    this.#legacy.start();
  }

  async #fire(job: Job<ExpiryJob>, redis: ScriptedRedis, keys: QueueKeys, metrics: WorkerMetrics) {
    const orderIds = "orderIds" in job.data ? job.data.orderIds : [job.data.orderId];
    // Sent together (one write); each is its own script call, so one refusal does not stop the others.
    const outcomes = await Promise.all(
      orderIds.map((orderId) => requestOrderEnd(redis, keys, orderId, "expired")),
    );
    for (const outcome of outcomes) metrics.orderExpiries.inc({ outcome: outcome.result });
    return outcomes.length;
  }

  #startWorker(
    prefix: string,
    connection: RedisConnection,
    fire: (job: Job<ExpiryJob>) => Promise<number>,
  ): Worker<ExpiryJob> {
    const worker = new Worker<ExpiryJob>(ORDER_EXPIRY_QUEUE, fire, { connection, prefix, concurrency: 50 });
    worker.on("error", (error) => this.#log.warn({ err: error.message }, "order expiry worker error"));
    worker.on("failed", (job, error) => {
      const orderIds = job ? ("orderIds" in job.data ? job.data.orderIds : [job.data.orderId]) : [];
      const attempts = job?.opts.attempts ?? 1;
      if (job && job.attemptsMade < attempts) {
        this.#log.warn(
          { jobId: job.id, orders: orderIds.length, attempt: job.attemptsMade, attempts, err: error.message },
          "order expiry attempt failed; BullMQ retries it",
        );
        return;
      }
      // Out of attempts: these orders hold their stock until paid or cancelled. Name them for the operator.
      this.#log.error(
        { jobId: job?.id, orderIds, attempts, err: error.message },
        "order expiry gave up: these unpaid orders will not expire by themselves; cancel them (POST /v1/orders/:id/cancel)",
      );
    });
    return worker;
  }

  async close(): Promise<void> {
    await this.#legacy?.close();
    await this.#worker?.close();
    await this.#queue.close();
    await Promise.all(this.#connections.map((redis) => redis.quit().catch(() => {})));
  }
}
