// The consume loop: read a batch across all partitions (entry-reader.ts) and hand each shard's entries to its
// lane (shard-lane.ts), whose batches run on their own (lane-batch.ts): a slow, frozen or unreachable shard
// delays only its own entries (they stay pending and kept claimed, retried with backoff) while the loop goes
// on reading and the other lanes go on applying. Payments that reach their shard before their order wait in
// awaiting-order-book.ts; claims, stalled counts and trims are housekeeping.ts's.
// Routing follows the shard map the global database records (ShardMapWatch polls it): entries of a bucket
// being moved are held aside (paused-bucket-hold.ts), and a lane's queue is routed again whenever the map
// changed, so a moved bucket's entries go to its new shard (the old one is fenced: shard-apply.ts).
import { AdmissionKeys } from "@floodgate/admission";
import type { Config } from "@floodgate/config";
import { type GlobalDatabase, type ShardDatabase, ShardMapWatch, storeUnavailable } from "@floodgate/db";
import type { WorkerMetrics } from "@floodgate/metrics";
import {
  adoptLegacyDeadLetters,
  ensureConsumerGroups,
  isMissingGroup,
  leaveConsumerGroup,
  PartialReadError,
  QueueKeys,
  type StreamEntry,
} from "@floodgate/queue";
import { createRedis, replicaWaitOf, type ScriptedRedis, waitForRedis } from "@floodgate/redis-connections";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { AwaitingOrderBook } from "./awaiting-order-book.ts";
import { createBatchPools } from "./batch-pools.ts";
import type { Poisoned } from "./dead-letter.ts";
import { createReaderConnection, EntryReader } from "./entry-reader.ts";
import { EventRetention } from "./events/event-retention.ts";
import { Housekeeping } from "./housekeeping.ts";
import { LaneBatchRunner } from "./lane-batch.ts";
import { OrderExpiry } from "./orders/order-expiry.ts";
import { PausedBucketHold } from "./paused-bucket-hold.ts";
import { ReplicatedEntries, type Unconfirmed } from "./replicated-entries.ts";
import { ReservationSweeper } from "./reservation-sweeper.ts";
import { type DecodedEntry, routeDecoded, sortByShard } from "./shard-groups.ts";
import { ShardLane } from "./shard-lane.ts";
import { publishStalledEntries } from "./stalled-entries.ts";
import { WorkerWebhooks } from "./webhooks/worker-webhooks.ts";

const PARTIAL_FAILURE_LOG_MS = 5_000;
const READ_PAUSE_MS = 20; // the lanes that are moving have a batch waiting each: let them catch up
const MAX_HELD_ENTRIES = 50_000; // stop reading while this many wait for a down shard

export class OperationWorker {
  readonly consumer: string;
  readonly #config: Config;
  readonly #log: Logger;
  readonly #keys: QueueKeys;
  #watch: ShardMapWatch | undefined;
  readonly #paused = new PausedBucketHold();
  #pausedVersion = -1;
  readonly #redis: ScriptedRedis;
  readonly #reader: ScriptedRedis;
  readonly #shards: Kysely<ShardDatabase>[];
  readonly #global: Kysely<GlobalDatabase>;
  readonly #expiry: OrderExpiry;
  readonly #metrics: WorkerMetrics;
  readonly #lanes: ShardLane[];
  readonly #awaitingOrder: AwaitingOrderBook;
  readonly #entries: EntryReader;
  readonly #batches: LaneBatchRunner;
  readonly #housekeeping: Housekeeping;
  readonly #webhooks: WorkerWebhooks;
  readonly #eventRetention: EventRetention;
  #stopping = false;
  #lastPartialFailureLog = 0;
  #lastUnconfirmedLog = 0;
  #loop: Promise<void> | undefined;

  constructor(config: Config, consumer: string, log: Logger, metrics: WorkerMetrics) {
    this.#config = config;
    this.consumer = consumer;
    this.#log = log;
    this.#metrics = metrics;
    this.#keys = new QueueKeys(config.redisPrefix, config.streamPartitions);
    this.#redis = createRedis(config.redisUrl, { name: `floodgate-worker-${consumer}` });
    this.#reader = createReaderConnection(config, consumer);
    for (const redis of [this.#redis, this.#reader]) {
      redis.on("error", (error) => this.#log.warn({ err: error.message }, "redis connection error"));
    }
    const pools = createBatchPools(config);
    this.#shards = pools.shards;
    this.#global = pools.global;
    this.#lanes = this.#shards.map((_, shard) => new ShardLane(shard));
    this.#expiry = new OrderExpiry(config, log);
    this.#webhooks = new WorkerWebhooks(config, log, metrics, {
      redis: this.#redis,
      keys: new AdmissionKeys(this.#keys),
    });
    this.#eventRetention = new EventRetention(config, log);
    this.#awaitingOrder = new AwaitingOrderBook(log);
    const replicated = new ReplicatedEntries(
      replicaWaitOf(config),
      this.#keys,
      config.visibilityTimeoutMs,
      (unconfirmed) => this.#unconfirmed(unconfirmed),
    );
    this.#entries = new EntryReader(config, this.#keys, consumer, this.#redis, this.#reader, replicated);
    this.#batches = new LaneBatchRunner({
      config,
      log,
      metrics,
      keys: this.#keys,
      redis: this.#redis,
      shards: this.#shards,
      global: this.#global,
      expiry: this.#expiry,
      awaitingOrder: this.#awaitingOrder,
      webhookEvents: () => this.#webhooks.subscriptions.types,
      // A batch refused by a shard's fence (its bucket moved away): read the map now, not at the next poll.
      onBucketMoved: () => void this.#watch?.refresh().catch(() => {}),
    });
    this.#housekeeping = new Housekeeping(
      config,
      log,
      this.#keys,
      this.#redis,
      consumer,
      new ReservationSweeper(this.#redis, this.#keys, this.#global, log),
    );
  }

  async start(): Promise<void> {
    await Promise.all([waitForRedis(this.#redis), waitForRedis(this.#reader)]);
    await ensureConsumerGroups(this.#redis, this.#keys);
    await this.#adoptLegacyDeadLetters();
    this.#watch = await ShardMapWatch.start(this.#global, this.#shards.length, {
      onError: (error) =>
        this.#log.warn({ err: error.message }, "could not poll the shard map; keeping the last"),
      onChange: (map) =>
        this.#log.info({ version: map.version, paused: [...map.paused] }, "shard map changed"),
    });
    this.#expiry.startFiring(this.#redis, this.#keys, this.#metrics);
    await this.#webhooks.start();
    this.#eventRetention.start();
    this.#loop = this.#run();
  }

  /** What the previous release dead-lettered into the untagged stream goes to the tagged one; never fatal. */
  async #adoptLegacyDeadLetters(): Promise<void> {
    try {
      const moved = await adoptLegacyDeadLetters(this.#redis, this.#keys);
      if (moved > 0)
        this.#log.info({ moved }, "moved the dead letters of the previous release to the tagged stream");
    } catch (error) {
      this.#log.warn({ err: (error as Error).message }, "could not move the previous release's dead letters");
    }
  }

  /** Finishes the batches in flight (applied and acknowledged), then closes connections. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#loop;
    // What the lanes hold is applied and acknowledged first, but for shards that are failing.
    for (;;) {
      const running = this.#lanes.map((lane) => lane.running).filter(Boolean);
      if (running.length === 0) break;
      await Promise.all(running);
    }
    const count = this.#lanes.reduce((n, lane) => n + lane.heldCount, 0);
    if (count > 0) {
      this.#log.warn(
        { count },
        "stopping with entries held for unreachable shards; another worker will claim them",
      );
    }
    await publishStalledEntries(this.#redis, this.#keys, this.consumer, 0).catch(() => {});
    await leaveConsumerGroup(this.#redis, this.#keys, this.consumer).catch((error: Error) =>
      this.#log.warn({ err: error.message }, "could not leave the consumer group; its name stays listed"),
    );
    this.#watch?.close();
    await this.#expiry.close();
    await this.#webhooks.stop();
    await this.#eventRetention.stop();
    await Promise.all([this.#redis.quit().catch(() => {}), this.#reader.quit().catch(() => {})]);
    await Promise.all([...this.#shards, this.#global].map((db) => db.destroy()));
  }

  async #run(): Promise<void> {
    while (!this.#stopping) {
      try {
        await this.#tick();
      } catch (error) {
        if (isMissingGroup(error)) {
          // Redis restarted empty (or the group was deleted): entries accepted since then wait in streams no
          // group reads. Created from 0: everything in them is new to the group (applied ones are recognised).
          this.#log.warn({ err: (error as Error).message }, "consumer group missing; creating it again");
          await ensureConsumerGroups(this.#redis, this.#keys).catch((again: Error) =>
            this.#log.warn({ err: again.message }, "could not create the consumer groups; retrying"),
          );
          continue;
        }
        // Redis away or an unexpected bug: nothing was acknowledged, so nothing is lost; pause and go on.
        const unavailable = storeUnavailable(error, "redis");
        if (unavailable) this.#log.warn({ err: unavailable.message }, "redis unavailable; retrying in 1 s");
        else this.#log.error({ err: error }, "worker iteration failed; retrying in 1 s");
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
    if (this.#awaitingOrder.size > 0) {
      this.#log.warn(
        { count: this.#awaitingOrder.size },
        "stopping with payments or end requests waiting for their order; another worker will claim them",
      );
    }
  }

  async #tick(): Promise<void> {
    const now = Date.now();
    const entries: StreamEntry[] = [];
    // Reads go one per partition; when some partitions fail (a cluster master away), the entries the others
    // gave are pending for this worker already: they are dispatched, and the failure is logged (every read
    // failing is #run's: a pause).
    let failure: { cause: unknown } | undefined;
    const take = async (read: Promise<StreamEntry[]>) => {
      try {
        entries.push(...(await read));
      } catch (error) {
        if (!(error instanceof PartialReadError)) throw error;
        entries.push(...error.entries);
        failure ??= { cause: error.cause };
      }
    };
    await take(this.#entries.claimStale(now));
    if (this.#mayRead(now)) {
      await take(this.#entries.readNew(this.#lanes.some((lane) => lane.queuedCount > 0)));
      // Taken out of the waiting list only now that the reads are done (a read that fails leaves them there).
      entries.push(...this.#awaitingOrder.takeDue(Date.now()));
    } else {
      await new Promise((resolve) => setTimeout(resolve, READ_PAUSE_MS));
    }
    await this.#dispatch(entries);
    for (const lane of this.#lanes) this.#startLane(lane); // lanes whose backoff is over
    const waiting = [...this.#awaitingOrder.entries(), ...this.#paused.entries().map((item) => item.entry)];
    await this.#housekeeping.run(now, this.#lanes, waiting);
    // A partition without its group (its master restarted empty) needs the groups made again: #run does it.
    if (failure && isMissingGroup(failure.cause)) throw failure.cause;
    if (failure) this.#partialFailure(failure.cause, now);
  }

  /**
   * Some partitions' reads failed (a cluster master away) while the others answered: their entries are
   * dispatched, and reading goes on at once; the failed partitions are retried after their backoff
   * (partition-backoff.ts), not with the whole worker paused. Logged at most every PARTIAL_FAILURE_LOG_MS.
   */
  #partialFailure(cause: unknown, now: number): void {
    if (now - this.#lastPartialFailureLog < PARTIAL_FAILURE_LOG_MS) return;
    this.#lastPartialFailureLog = now;
    this.#log.warn(
      { err: (cause as Error)?.message, partitions: this.#entries.backoff.failing },
      "some partitions' Redis did not answer; reading the others, retrying those after a backoff",
    );
  }

  /** Entries read but held unapplied for want of a replica's confirmation: counted, logged every 5 s at most. */
  #unconfirmed({ newlyHeld, held, partitions, cause }: Unconfirmed): void {
    this.#metrics.unconfirmedEntries.inc(newlyHeld);
    const now = Date.now();
    if (now - this.#lastUnconfirmedLog < PARTIAL_FAILURE_LOG_MS) return;
    this.#lastUnconfirmedLog = now;
    this.#log.warn(
      { held, partitions, err: cause.message },
      "entries read but no replica confirmed them (REDIS_WAIT_REPLICAS): held unapplied, confirmed again with the next read",
    );
  }

  /**
   * Reading goes on while the lanes that are moving have less than a batch waiting each (so reads keep pace
   * with applying), whatever a stalled lane holds, up to MAX_HELD_ENTRIES in all.
   */
  #mayRead(now: number): boolean {
    let held = 0;
    for (const lane of this.#lanes) {
      held += lane.heldCount;
      if (!lane.stalled(now) && lane.queuedCount >= this.#config.batchSize) return false;
    }
    return held < MAX_HELD_ENTRIES;
  }

  /** Sorts the entries into their shards' lanes and starts every lane that is free. */
  async #dispatch(entries: StreamEntry[]): Promise<void> {
    const routing = this.#routing();
    // What is held by an older map first, so it stays ahead of newer entries of the same users.
    if (this.#paused.size > 0 && this.#pausedVersion !== routing.version) {
      // The map changed since they were held: a bucket that is no longer paused goes to its (new) shard.
      this.#pausedVersion = routing.version;
      const again = routeDecoded(this.#paused.takeAll(), routing);
      this.#place(again.byShard, again.paused);
    }
    for (const lane of this.#lanes) this.#routeLaneAgain(lane);
    const { byShard, paused, undecodable } = sortByShard(entries, routing);
    const poisoned: Poisoned[] = [];
    for (const { entry, reason } of undecodable) this.#batches.onOwnFailure(entry, reason, poisoned);
    this.#place(byShard, paused);
    for (const lane of this.#lanes) this.#startLane(lane);
    await this.#batches.deadLetter(poisoned);
  }

  #routing() {
    if (!this.#watch) throw new Error("the worker routes entries only once started");
    return this.#watch.current;
  }

  #place(byShard: Map<number, DecodedEntry[]>, paused: DecodedEntry[]): void {
    for (const [shard, group] of byShard) this.#lanes[shard]!.add(group);
    this.#paused.add(paused);
  }

  /** A lane's queue routed by an older map goes through the current one again (stream order is kept). */
  #routeLaneAgain(lane: ShardLane): void {
    const routing = this.#routing();
    if (lane.mapVersion === routing.version) return;
    const items = lane.takeQueued();
    lane.mapVersion = routing.version;
    const again = routeDecoded(items, routing);
    this.#place(again.byShard, again.paused);
  }

  #startLane(lane: ShardLane): void {
    if (this.#stopping && lane.attempts > 0) return; // stopping: a shard that is failing keeps its entries pending
    this.#routeLaneAgain(lane);
    if (!lane.ready(Date.now())) return;
    lane.start(this.#config.batchSize, (group) =>
      this.#batches
        .run(lane, group)
        .catch((error: Error) =>
          this.#log.error(
            { err: error, shard: lane.shard },
            "lane failed unexpectedly; its entries stay pending",
          ),
        ),
    );
    // The next batch of this shard as soon as this one is done: the loop need not come round for it.
    void lane.running?.then(() => this.#startLane(lane));
  }
}
