// Unpaid orders expire through BullMQ delayed jobs, one per order (jobId = order id, so adding it again on a
// redelivery changes nothing). When a job fires it does not touch the order itself: it queues an end request
// on the order's partition stream (request-order-end-3.lua), so the expiry is ordered with the order's
// payment and the shard decides which came first. A failed attempt is retried by BullMQ with backoff.
import type { Config } from "@floodgate/config";
import type { WorkerMetrics } from "@floodgate/metrics";
import { type QueueKeys, requestOrderEnd, type ScriptedRedis } from "@floodgate/queue";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { AwaitingOrder } from "./order-outcomes.ts";

export const ORDER_EXPIRY_QUEUE = "order-expiry";

interface ExpiryJob {
  orderId: string;
}

/** BullMQ's keys live under the deployment's prefix, so tests and deployments sharing a Redis stay apart. */
export const bullPrefix = (config: Pick<Config, "redisPrefix">) => `${config.redisPrefix}bull`;

export class OrderExpiry {
  readonly #queue: Queue<ExpiryJob>;
  readonly #connections: Redis[] = [];
  #worker: Worker<ExpiryJob> | undefined;
  readonly #config: Config;
  readonly #log: Logger;

  constructor(config: Config, log: Logger) {
    this.#config = config;
    this.#log = log;
    const connection = this.#connection(false);
    this.#queue = new Queue<ExpiryJob>(ORDER_EXPIRY_QUEUE, { connection, prefix: bullPrefix(config) });
    this.#queue.on("error", (error) => log.warn({ err: error.message }, "order expiry queue error"));
  }

  #connection(blocking: boolean): Redis {
    // BullMQ's worker blocks on Redis and must retry forever; the queue side fails fast like the rest.
    const redis = new Redis(this.#config.redisUrl, {
      maxRetriesPerRequest: blocking ? null : 1,
      connectionName: `floodgate-order-expiry${blocking ? "-worker" : ""}`,
    });
    redis.on("error", (error) => this.#log.warn({ err: error.message }, "order expiry redis error"));
    this.#connections.push(redis);
    return redis;
  }

  /** One round trip for the batch's orders; an order already scheduled keeps its job. */
  async schedule(orders: AwaitingOrder[]): Promise<void> {
    if (orders.length === 0) return;
    const now = Date.now();
    await this.#queue.addBulk(
      orders.map((order) => ({
        name: "expire",
        data: { orderId: order.orderId },
        opts: {
          jobId: order.orderId,
          delay: Math.max(0, order.expiresAt - now),
          attempts: 10,
          backoff: { type: "exponential", delay: 1000 },
          removeOnComplete: true,
          removeOnFail: 1000,
        },
      })),
    );
  }

  /** Fires the due jobs in this process (every worker process runs one; BullMQ hands each job to one). */
  startFiring(redis: ScriptedRedis, keys: QueueKeys, metrics: WorkerMetrics): void {
    this.#worker = new Worker<ExpiryJob>(
      ORDER_EXPIRY_QUEUE,
      async (job) => {
        const outcome = await requestOrderEnd(redis, keys, job.data.orderId, "expired");
        metrics.expiryJobs.inc({ outcome: outcome.result });
        return outcome.result;
      },
      { connection: this.#connection(true), prefix: bullPrefix(this.#config), concurrency: 50 },
    );
    this.#worker.on("error", (error) => this.#log.warn({ err: error.message }, "order expiry worker error"));
    this.#worker.on("failed", (job, error) =>
      this.#log.warn(
        { orderId: job?.data.orderId, err: error.message },
        "order expiry attempt failed; BullMQ retries it",
      ),
    );
  }

  async close(): Promise<void> {
    await this.#worker?.close();
    await this.#queue.close();
    await Promise.all(this.#connections.map((redis) => redis.quit().catch(() => {})));
  }
}
