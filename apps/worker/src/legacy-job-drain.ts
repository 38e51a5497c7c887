// One release's bridge from the untagged BullMQ prefix (legacyBullPrefix) to the tagged ones: jobs the
// previous release left under the old prefix (order expiries due later, webhook deliveries waiting for a
// retry) must still run. Each worker process looks at the old queue at start and then every minute; while it
// holds a job (waiting, delayed, or active on a worker of the previous release, which would come back as
// stalled if that worker died), a Worker on the old prefix runs it with the same processor as the tagged
// queue; once the old queue is empty that Worker closes. It is looked at again, not given up: during a rolling
// upgrade a worker of the previous release keeps adding jobs there until it stops.
// Only on one Redis: a cluster never held the old prefix (its keys carry no tag; BullMQ's scripts could not
// run there), so in cluster mode nothing is looked at.
import { type Config, parseRedisUrl } from "@floodgate/config";
import { createJobQueueConnection, type RedisConnection } from "@floodgate/redis-connections";
import { Queue, type Worker } from "bullmq";
import type { Logger } from "pino";
import { legacyBullPrefix } from "./job-queue-prefix.ts";

const CHECK_EVERY_MS = 60_000;
/** Every state in which a job may still run ("completed" and "failed" are done). */
const LIVE_STATES = ["wait", "delayed", "active", "prioritized", "paused", "waiting-children"] as const;

export interface LegacyJobDrainOptions {
  config: Config;
  log: Logger;
  queue: string;
  /** A Worker of this queue on `prefix`, with the processor and options the tagged queue's Worker has. */
  startWorker(prefix: string, connection: RedisConnection): Worker;
}

export class LegacyJobDrain {
  readonly #options: LegacyJobDrainOptions;
  readonly #connections: RedisConnection[] = [];
  #queue: Queue | undefined;
  #running: { worker: Worker; connection: RedisConnection } | undefined;
  #timer: NodeJS.Timeout | undefined;
  #checking: Promise<void> | undefined;
  #closed = false;

  constructor(options: LegacyJobDrainOptions) {
    this.#options = options;
  }

  /** Looks now (not awaited: the caller's start does not wait for an old queue) and every minute after. */
  start(): void {
    const { config, queue, log } = this.#options;
    if (parseRedisUrl(config.redisUrl).kind !== "single") return;
    this.#queue = new Queue(queue, {
      connection: this.#connection(false),
      prefix: legacyBullPrefix(config),
      skipMetasUpdate: true, // only looked at: writes nothing under the old prefix
    });
    this.#queue.on("error", (error) => log.warn({ err: error.message, queue }, "old-prefix queue error"));
    void this.check();
    this.#timer = setInterval(() => void this.check(), CHECK_EVERY_MS);
    this.#timer.unref();
  }

  /** Whether a Worker runs the old prefix's jobs now. */
  get draining(): boolean {
    return this.#running !== undefined;
  }

  /** One look at the old queue: starts or closes its Worker. Resolves once done (a failure is logged). */
  check(): Promise<void> {
    this.#checking ??= this.#checkOnce().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  async #checkOnce(): Promise<void> {
    const { config, queue, log } = this.#options;
    if (this.#queue === undefined || this.#closed) return;
    try {
      const counts = await this.#queue.getJobCounts(...LIVE_STATES);
      const left = Object.values(counts).reduce((sum, count) => sum + count, 0);
      if (left > 0 && this.#running === undefined && !this.#closed) {
        const connection = this.#connection(true);
        const worker = this.#options.startWorker(legacyBullPrefix(config), connection);
        this.#running = { worker, connection };
        log.info({ queue, left }, "running the jobs a previous release left under the old BullMQ prefix");
      } else if (left === 0 && this.#running !== undefined) {
        await this.#stopWorker();
        log.info({ queue }, "the old BullMQ prefix holds no more jobs");
      }
    } catch (error) {
      log.warn({ err: (error as Error).message, queue }, "could not look at the old BullMQ prefix; retrying");
    }
  }

  #connection(blocking: boolean): RedisConnection {
    const redis = createJobQueueConnection(this.#options.config.redisUrl, {
      name: `floodgate-${this.#options.queue}-old-prefix${blocking ? "-worker" : ""}`,
      blocking,
    });
    redis.on("error", (error) =>
      this.#options.log.warn({ err: error.message, queue: this.#options.queue }, "old-prefix redis error"),
    );
    this.#connections.push(redis);
    return redis;
  }

  async #stopWorker(): Promise<void> {
    const running = this.#running;
    if (running === undefined) return;
    this.#running = undefined;
    await running.worker.close();
    await running.connection.quit().catch(() => {});
    this.#connections.splice(this.#connections.indexOf(running.connection), 1);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#checking;
    await this.#stopWorker();
    await this.#queue?.close();
    await Promise.all(this.#connections.map((redis) => redis.quit().catch(() => {})));
  }
}
