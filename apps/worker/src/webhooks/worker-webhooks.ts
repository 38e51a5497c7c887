// A worker process's webhook side: the endpoint list (webhook-subscriptions.ts) that tells the batches which
// events to write, the relay loop (outbox-relay.ts) and the delivery jobs (webhook-delivery-worker.ts). Its
// own Postgres pools, so neither a relay pass nor a burst of deliveries waits for (or holds up) a batch's
// connection. BullMQ's connections as the order expiries set them up (orders/order-expiry.ts); the queue's
// own tagged prefix (job-queue-prefix.ts), and the jobs a previous release left under the old one still run
// (legacy-job-drain.ts). Each pass first drains the rooms' event streams into shard 0 (room-event-drain.ts),
// whether or not any endpoint listens: the events feed has them either way.
import type { AdmissionKeys } from "@floodgate/admission";
import type { Config } from "@floodgate/config";
import { createKysely, type GlobalDatabase, type ShardDatabase } from "@floodgate/db";
import { SECRET_ROTATION_OVERLAP_HOURS } from "@floodgate/domain";
import type { WorkerMetrics } from "@floodgate/metrics";
import {
  createJobQueueConnection,
  type RedisConnection,
  type ScriptedRedis,
} from "@floodgate/redis-connections";
import { Queue, type Worker } from "bullmq";
import { type Kysely, sql } from "kysely";
import type { Logger } from "pino";
import { drainRoomEvents } from "../events/room-event-drain.ts";
import { bullPrefix } from "../job-queue-prefix.ts";
import { LegacyJobDrain } from "../legacy-job-drain.ts";
import { type RelayDependencies, ROWS_PER_PASS, relayRedeliveries, relayShard } from "./outbox-relay.ts";
import { deliveryAttempts } from "./retry-schedule.ts";
import { type DeliveryJob, startDeliveryWorker, WEBHOOK_QUEUE } from "./webhook-delivery-worker.ts";
import { WebhookSubscriptions } from "./webhook-subscriptions.ts";

const RELAY_EVERY_MS = 200;
/** Without any enabled endpoint nothing new is written: a pass now and then clears what an old one left. */
const IDLE_RELAY_EVERY_MS = 5000;
const GAUGE_EVERY_MS = 5000;

/** Where the rooms' event streams are (the worker's own connection; the room keys under its prefix). */
export interface RoomEventSource {
  redis: ScriptedRedis;
  keys: AdmissionKeys;
}

export class WorkerWebhooks {
  readonly subscriptions: WebhookSubscriptions;
  readonly #config: Config;
  readonly #log: Logger;
  readonly #metrics: WorkerMetrics;
  readonly #global: Kysely<GlobalDatabase>;
  readonly #shards: Kysely<ShardDatabase>[];
  readonly #connections: RedisConnection[] = [];
  readonly #queue: Queue<DeliveryJob>;
  readonly #rooms: RoomEventSource | undefined;
  #worker: Worker<DeliveryJob> | undefined;
  #legacy: LegacyJobDrain | undefined;
  #loop: Promise<void> | undefined;
  #stopping = false;
  #wake: (() => void) | undefined;
  #lastGauge = 0;

  constructor(config: Config, log: Logger, metrics: WorkerMetrics, rooms?: RoomEventSource) {
    this.#config = config;
    this.#rooms = rooms;
    this.#log = log;
    this.#metrics = metrics;
    const pool = (url: string, name: string, max: number) =>
      createKysely(url, { max, applicationName: name, timeouts: config.postgresTimeouts });
    this.#global = pool(config.databaseUrl, "floodgate-worker-webhooks", 3) as Kysely<GlobalDatabase>;
    this.#shards = config.shardUrls.map(
      (url, i) => pool(url, `floodgate-worker-webhooks-shard-${i}`, 1) as Kysely<ShardDatabase>,
    );
    this.subscriptions = new WebhookSubscriptions(this.#global, log);
    this.#queue = new Queue<DeliveryJob>(WEBHOOK_QUEUE, {
      connection: this.#connection(false),
      prefix: bullPrefix(config, WEBHOOK_QUEUE),
    });
    this.#queue.on("error", (error) => log.warn({ err: error.message }, "webhook queue error"));
  }

  #connection(blocking: boolean): RedisConnection {
    const redis = createJobQueueConnection(this.#config.redisUrl, {
      name: `floodgate-webhooks${blocking ? "-worker" : ""}`,
      blocking,
    });
    redis.on("error", (error) => this.#log.warn({ err: error.message }, "webhook redis error"));
    this.#connections.push(redis);
    return redis;
  }

  async start(): Promise<void> {
    await this.subscriptions.start();
    const start = (prefix: string, connection: RedisConnection) =>
      startDeliveryWorker({
        config: this.#config,
        log: this.#log,
        metrics: this.#metrics,
        global: this.#global,
        connection,
        prefix,
      });
    this.#worker = start(bullPrefix(this.#config, WEBHOOK_QUEUE), this.#connection(true));
    this.#legacy = new LegacyJobDrain({
      config: this.#config,
      log: this.#log,
      queue: WEBHOOK_QUEUE,
      startWorker: start,
    });
    this.#legacy.start();
    this.#loop = this.#relayLoop();
  }

  async #relayLoop(): Promise<void> {
    const attempts = deliveryAttempts(this.#config.webhooks.retryBaseMs);
    const deps: RelayDependencies = {
      shards: this.#shards,
      global: this.#global,
      queue: this.#queue,
      subscriptions: this.subscriptions,
      jobOptions: (jobId) => ({
        jobId,
        attempts,
        backoff: { type: "webhook" },
        // Kept a day after success so a relay repeating itself adds no second job; the row is the real guard.
        removeOnComplete: { age: 86_400 },
        removeOnFail: { age: 7 * 86_400 },
      }),
    };
    let lastPass = 0;
    while (!this.#stopping) {
      let full = false;
      await this.#updateGauge(); // every 5 s, idle or not (so it falls to 0 when the last endpoint goes)
      const rooms = this.#rooms;
      if (rooms) {
        await this.#pass("room events", () =>
          drainRoomEvents(rooms.redis, rooms.keys, this.#shards[0]!, this.subscriptions.types),
        );
      }
      if (this.subscriptions.types.size === 0 && Date.now() - lastPass < IDLE_RELAY_EVERY_MS) {
        await this.#sleep();
        continue;
      }
      lastPass = Date.now();
      for (let shard = 0; shard < this.#shards.length && !this.#stopping; shard++) {
        full = (await this.#pass(`shard ${shard}`, () => relayShard(deps, shard))) >= ROWS_PER_PASS || full;
      }
      await this.#pass("redeliveries", () => relayRedeliveries(deps));
      if (!full) await this.#sleep();
    }
  }

  #sleep(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#wake = resolve;
      setTimeout(resolve, RELAY_EVERY_MS);
    });
  }

  /** A pass that fails leaves its rows where they are for the next one. */
  async #pass(what: string, run: () => Promise<number>): Promise<number> {
    try {
      return await run();
    } catch (error) {
      this.#log.warn({ err: (error as Error).message, what }, "webhook relay pass failed; retrying");
      return 0;
    }
  }

  /** Every 5 s: the oldest undelivered delivery's age, and rotated-out secrets past their overlap forgotten. */
  async #updateGauge(): Promise<void> {
    const now = Date.now();
    if (now - this.#lastGauge < GAUGE_EVERY_MS) return;
    this.#lastGauge = now;
    // A disabled endpoint's deliveries wait on purpose (redeliver sends them once it is enabled): not late.
    const oldest = await sql<{ age: number | null }>`
      select extract(epoch from now() - min(d.created_at))::float8 as age
      from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id and e.enabled
      where d.delivered_at is null and d.gave_up_at is null`
      .execute(this.#global)
      .catch(() => undefined);
    if (oldest) this.#metrics.webhookOldestUndelivered.set(oldest.rows[0]?.age ?? 0);
    // A rotated-out secret that no longer signs is not kept: one secret less to leak. Failing is harmless (it
    // signs no more either way), so it waits for the next tick.
    await sql`update webhook_endpoints set previous_secret = null
              where previous_secret is not null
                and secret_rotated_at <= now() - make_interval(hours => ${SECRET_ROTATION_OVERLAP_HOURS})`
      .execute(this.#global)
      .catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    await this.#loop;
    this.subscriptions.stop();
    await this.#legacy?.close();
    await this.#worker?.close();
    await this.#queue.close();
    await Promise.all(this.#connections.map((redis) => redis.quit().catch(() => {})));
    await Promise.all([this.#global, ...this.#shards].map((db) => db.destroy()));
  }
}
