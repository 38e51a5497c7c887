// What a worker does between batches, each at its own pace: keeps the entries it holds claimed (a lane's for a
// down shard, and those waiting for their order) so no other worker takes them over, publishes how many
// entries stalled lanes hold (backpressure counts only what can drain), trims acknowledged entries and, on a
// Redis Cluster, sweeps coupon units reserved by requests never recorded (reservation-sweeper.ts).
import type { Config } from "@floodgate/config";
import {
  keepEntriesClaimed,
  type QueueKeys,
  type StreamEntry,
  trimAcknowledgedEntries,
} from "@floodgate/queue";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import type { Logger } from "pino";
import type { ReservationSweeper } from "./reservation-sweeper.ts";
import type { ShardLane } from "./shard-lane.ts";
import { publishStalledEntries } from "./stalled-entries.ts";

const TRIM_EVERY_MS = 5000;
const PUBLISH_STALLED_EVERY_MS = 500;

export class Housekeeping {
  readonly #config: Config;
  readonly #log: Logger;
  readonly #keys: QueueKeys;
  readonly #redis: ScriptedRedis;
  readonly #consumer: string;
  readonly #sweeper: ReservationSweeper;
  #lastKeepAlive = 0;
  #lastStalledPublish = 0;
  #lastTrim = 0;
  #publishedStalled = 0;

  constructor(
    config: Config,
    log: Logger,
    keys: QueueKeys,
    redis: ScriptedRedis,
    consumer: string,
    sweeper: ReservationSweeper,
  ) {
    this.#config = config;
    this.#log = log;
    this.#keys = keys;
    this.#redis = redis;
    this.#consumer = consumer;
    this.#sweeper = sweeper;
  }

  async run(now: number, lanes: ShardLane[], waiting: StreamEntry[]): Promise<void> {
    await this.#keepClaimed(now, lanes, waiting);
    await this.#publishStalled(now, lanes);
    await this.#trim(now);
    await this.#sweeper.run(now);
  }

  async #keepClaimed(now: number, lanes: ShardLane[], waiting: StreamEntry[]): Promise<void> {
    const held = lanes.flatMap((lane) => lane.held());
    if (held.length === 0 && waiting.length === 0) return;
    if (now - this.#lastKeepAlive < this.#config.visibilityTimeoutMs / 3) return;
    this.#lastKeepAlive = now;
    const entries = [...held.map((item) => item.entry), ...waiting];
    // If this fails, another worker may claim them after the visibility timeout: the shard recognises them.
    await keepEntriesClaimed(this.#redis, this.#keys, this.#consumer, entries).catch((error: Error) =>
      this.#log.warn(
        { err: error.message, held: entries.length },
        "could not keep held and waiting entries claimed; another worker may take them over",
      ),
    );
  }

  async #publishStalled(now: number, lanes: ShardLane[]): Promise<void> {
    if (now - this.#lastStalledPublish < PUBLISH_STALLED_EVERY_MS) return;
    this.#lastStalledPublish = now;
    const stalled = lanes.reduce((n, lane) => n + (lane.stalled(now) ? lane.heldCount : 0), 0);
    // Only a change is written (and a repeat of a non-zero count, which the gauge forgets when not renewed).
    if (stalled === 0 && this.#publishedStalled === 0) return;
    await publishStalledEntries(this.#redis, this.#keys, this.#consumer, stalled).then(
      () => {
        this.#publishedStalled = stalled;
      },
      (error: Error) => this.#log.warn({ err: error.message }, "could not publish the stalled entries"),
    );
  }

  async #trim(now: number): Promise<void> {
    if (now - this.#lastTrim < TRIM_EVERY_MS) return;
    this.#lastTrim = now;
    // A trim that fails only leaves acknowledged entries for the next one.
    await trimAcknowledgedEntries(this.#redis, this.#keys).catch((error: Error) =>
      this.#log.warn({ err: error.message }, "could not trim the streams; the next trim retries"),
    );
  }
}
