// The consume loop: read a batch across all partitions and hand each shard's entries to its lane
// (shard-lane.ts). A lane applies its entries with one transaction, writes their final statuses and
// acknowledges them in one Redis round trip, on its own: a slow, frozen or unreachable shard delays only its
// own entries (they stay pending and kept claimed, retried with backoff) while the loop goes on reading and
// the other lanes go on applying.
// Orders add two steps around a lane's transaction, both on the global database and both idempotent: the
// lane batch's stock is reserved (one statement) before, and the stock of orders that ended is released after;
// Redis gets the releases (and paid orders' unpaid units) in the same round trip as the statuses, and BullMQ
// the expiry jobs before it.
import type { Config } from "@floodgate/config";
import { type GlobalDatabase, type ShardDatabase, storeUnavailable } from "@floodgate/db";
import type { OperationMessage } from "@floodgate/domain";
import type { WorkerMetrics } from "@floodgate/metrics";
import {
  CONSUMER_GROUP,
  claimStaleEntries,
  createRedis,
  ensureConsumerGroups,
  execOrThrow,
  type FinalStatus,
  isMissingGroup,
  keepEntriesClaimed,
  leaveConsumerGroup,
  type PaidOrder,
  QueueKeys,
  queueFinishedOperations,
  queueOrderReleases,
  queueUnpaidSettlements,
  readNewEntries,
  type ScriptedRedis,
  type StreamEntry,
  waitForRedis,
} from "@floodgate/queue";
import { ShardMap } from "@floodgate/shard-router";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { applyShardBatch } from "./apply-shard-batch.ts";
import { lingerAfterRead } from "./batch-linger.ts";
import { createBatchPools } from "./batch-pools.ts";
import { isRetryable } from "./classify-error.ts";
import { deadLetter, deadLetteredOrders, type Poisoned } from "./dead-letter.ts";
import { ordersChangedBy } from "./orders/order-changes.ts";
import { OrderExpiry } from "./orders/order-expiry.ts";
import type { AwaitingOrder, EndedOrder } from "./orders/order-outcomes.ts";
import { reserveLaneStock } from "./orders/reserve-lane-stock.ts";
import { moveStock } from "./orders/stock-ledger.ts";
import { type DecodedEntry, entryKey, mayBeApplied, sortByShard } from "./shard-groups.ts";
import { ShardLane } from "./shard-lane.ts";
import { publishStalledEntries } from "./stalled-entries.ts";

const READ_BLOCK_MS = 100;
const READ_PAUSE_MS = 20; // the lanes that are moving have a batch waiting each: let them catch up
// A payment or end request whose order another worker is applying right now: first retried after 250 ms, then
// less and less often (a made-up order id must not cost a lookup every 250 ms for its whole minute).
const AWAIT_ORDER_RETRY_MS = 250;
const AWAIT_ORDER_RETRY_MAX_MS = 5_000;
const MAX_AWAITING_ORDER = 10_000; // past this many waiting messages, no more may wait (mayAwaitOrder)
const TRIM_EVERY_MS = 5000;
const MAX_HELD_ENTRIES = 50_000; // stop reading while this many wait for a down shard
const PUBLISH_STALLED_EVERY_MS = 500;

export class OperationWorker {
  readonly consumer: string;
  readonly #config: Config;
  readonly #log: Logger;
  readonly #metrics: WorkerMetrics;
  readonly #keys: QueueKeys;
  readonly #map: ShardMap;
  readonly #redis: ScriptedRedis;
  readonly #reader: ScriptedRedis;
  readonly #shards: Kysely<ShardDatabase>[];
  readonly #global: Kysely<GlobalDatabase>;
  readonly #expiry: OrderExpiry;
  readonly #lanes: ShardLane[];
  /** Payments and end requests left out of their batch as their order is not on its shard yet, by entryKey. */
  readonly #awaitingOrder = new Map<string, { entry: StreamEntry; retryAt: number; attempts: number }>();
  /**
   * Entries of waiting messages being retried (in a lane until their batch settles), with their attempts so
   * far: looked up first (another worker may have applied one), and backed off further if they wait again.
   */
  readonly #retriedAwaiting = new Map<string, number>();
  #stopping = false;
  #loop: Promise<void> | undefined;
  #lastClaim = 0;
  #lastTrim = 0;
  #lastKeepAlive = 0;
  #lastStalledPublish = 0;
  #publishedStalled = 0;

  constructor(config: Config, consumer: string, log: Logger, metrics: WorkerMetrics) {
    this.#config = config;
    this.consumer = consumer;
    this.#log = log;
    this.#metrics = metrics;
    this.#keys = new QueueKeys(config.redisPrefix, config.streamPartitions);
    this.#map = ShardMap.contiguous(config.shardUrls.length);
    this.#redis = createRedis(config.redisUrl, { name: `floodgate-worker-${consumer}` });
    this.#reader = createRedis(config.redisUrl, {
      name: `floodgate-worker-${consumer}-reader`,
      blocking: true,
    });
    for (const redis of [this.#redis, this.#reader]) {
      redis.on("error", (error) => this.#log.warn({ err: error.message }, "redis connection error"));
    }
    const pools = createBatchPools(config);
    this.#shards = pools.shards;
    this.#lanes = this.#shards.map((_, shard) => new ShardLane(shard));
    this.#global = pools.global;
    this.#expiry = new OrderExpiry(config, log);
  }

  async start(): Promise<void> {
    await Promise.all([waitForRedis(this.#redis), waitForRedis(this.#reader)]);
    await ensureConsumerGroups(this.#redis, this.#keys);
    this.#expiry.startFiring(this.#redis, this.#keys, this.#metrics);
    this.#loop = this.#run();
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
    await this.#expiry.close();
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
    if (now - this.#lastClaim >= this.#config.visibilityTimeoutMs / 2) {
      this.#lastClaim = now;
      entries.push(
        ...(await claimStaleEntries(
          this.#redis,
          this.#keys,
          this.consumer,
          this.#config.visibilityTimeoutMs,
          100,
        )),
      );
    }
    if (this.#mayRead(now)) {
      const perPartition = Math.max(16, Math.ceil(this.#config.batchSize / this.#keys.partitions));
      const block = this.#lanes.some((lane) => lane.queuedCount > 0) ? 20 : READ_BLOCK_MS;
      const fresh = await readNewEntries(this.#reader, this.#keys, this.consumer, perPartition, block);
      entries.push(...fresh);
      // A small batch costs a transaction per shard all the same: linger so the next entries join it, the
      // longer the busier the stream (batch-linger.ts).
      const linger = lingerAfterRead(fresh.length, this.#config.lingerMs, this.#config.batchSize);
      if (linger > 0) {
        await new Promise((resolve) => setTimeout(resolve, linger));
        entries.push(...(await readNewEntries(this.#reader, this.#keys, this.consumer, perPartition)));
      }
      // Taken out of the waiting list only now that the reads are done (a read that fails leaves them there).
      entries.push(...this.#dueAwaitingOrder(Date.now()));
    } else {
      await new Promise((resolve) => setTimeout(resolve, READ_PAUSE_MS));
    }
    await this.#dispatch(entries);
    await this.#maintain(now);
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
    const { byShard, undecodable } = sortByShard(entries, this.#map);
    const poisoned: Poisoned[] = [];
    for (const { entry, reason } of undecodable) this.#onOwnFailure(entry, reason, poisoned);
    for (const [shard, group] of byShard) this.#lanes[shard]!.add(group);
    for (const lane of this.#lanes) this.#startLane(lane);
    await this.#deadLetter(poisoned);
  }

  #startLane(lane: ShardLane): void {
    if (this.#stopping && lane.attempts > 0) return; // stopping: a shard that is failing keeps its entries pending
    if (!lane.ready(Date.now())) return;
    lane.start(this.#config.batchSize, (group) =>
      this.#runLane(lane, group).catch((error: Error) =>
        this.#log.error(
          { err: error, shard: lane.shard },
          "lane failed unexpectedly; its entries stay pending",
        ),
      ),
    );
    // The next batch of this shard as soon as this one is done: the loop need not come round for it.
    void lane.running?.then(() => this.#startLane(lane));
  }

  /**
   * One batch of one shard: stock reserved (orders), one transaction on the shard, stock released, expiry
   * jobs, then statuses and acknowledgement in one Redis round trip. Settles every entry of the group: done
   * (acknowledged, waiting for its order, or left for redelivery) or given back to the lane for a retry.
   */
  async #runLane(lane: ShardLane, group: DecodedEntry[]): Promise<void> {
    const started = performance.now();
    const poisoned: Poisoned[] = [];
    const suspects = new Set(
      group
        .filter((g) => mayBeApplied(g) || this.#retriedAwaiting.has(entryKey(g.entry)))
        .map((g) => g.message),
    );
    let retry: DecodedEntry[] = [];
    let retryError: unknown;
    try {
      const reserved = await reserveLaneStock(this.#global, group, {
        onStatement: () => this.#metrics.orderSqlStatements.inc(),
        onOwnFailure: (item, reason) => this.#onOwnFailure(item.entry, reason, poisoned),
        log: this.#log,
      });
      if (!Array.isArray(reserved)) {
        this.#giveBack(lane, group, reserved.retryError);
        return;
      }
      const outcome =
        reserved.length > 0
          ? await this.#applyShard(lane.shard, reserved, poisoned, suspects)
          : { statuses: [], acked: [], ended: [], awaiting: [], paid: [], retry: [], retryError: undefined };
      retry = outcome.retry;
      retryError = outcome.retryError;
      const ended = [...outcome.ended, ...deadLetteredOrders(poisoned)];
      const endedOnce = [...new Map(ended.map((order) => [order.orderId, order])).values()];
      // Before the acknowledgement: if either fails, the entries are retried and these steps redone (the
      // ledger and the job ids make them idempotent).
      if (endedOnce.length > 0) {
        await moveStock(this.#global, "release", endedOnce);
        this.#metrics.orderSqlStatements.inc();
      }
      await this.#expiry.schedule(outcome.awaiting);
      if (outcome.statuses.length > 0 || outcome.acked.length > 0 || endedOnce.length > 0) {
        // Releases, settlements of paid orders' unpaid units, status, publish and XACK after the commit, in one
        // round trip; the settlements before the statuses, so a client that sees its payment succeed finds its
        // units free for its next order. A failure here leaves the entries pending: they are retried, the shard
        // recognises them, and all of this is written again (each step is idempotent).
        const pipeline = this.#redis.pipeline();
        queueOrderReleases(pipeline, this.#keys, endedOnce);
        queueUnpaidSettlements(pipeline, this.#keys, outcome.paid);
        const messages = group.map((g) => g.message);
        queueFinishedOperations(
          pipeline,
          this.#keys,
          {
            statuses: outcome.statuses,
            acknowledged: outcome.acked,
            changedOrders: ordersChangedBy(outcome.statuses, messages),
          },
          this.#config.statusTtlSeconds,
        );
        await execOrThrow(pipeline, `final statuses and acknowledgement of ${outcome.acked.length} entries`);
      }
      await this.#deadLetter(poisoned);
      if (outcome.acked.length > 0) {
        this.#metrics.batchSize.observe(outcome.acked.length);
        this.#metrics.batchSeconds.observe((performance.now() - started) / 1000);
      }
    } catch (error) {
      // Redis or the global database failed after the shard: nothing of the group is settled yet but the
      // shard's commit; all of it is retried (recognised on the shard), except what failed on its own. A
      // failure that is no store's is a bug: retried all the same (nothing is lost), and said loudly.
      if (!isRetryable(error) && !storeUnavailable(error, "redis")) {
        this.#log.error({ err: error, shard: lane.shard }, "lane batch failed after its commit; retrying it");
      }
      const own = new Set(poisoned.map((p) => p.entry));
      this.#giveBack(
        lane,
        group.filter((g) => !own.has(g.entry)),
        error,
      );
      lane.done(group.filter((g) => own.has(g.entry)));
      return;
    }
    const retried = new Set(retry);
    const settled = group.filter((g) => !retried.has(g));
    for (const item of settled) this.#retriedAwaiting.delete(entryKey(item.entry));
    lane.done(settled);
    if (retry.length > 0) this.#giveBack(lane, retry, retryError);
    else lane.attempts = 0;
  }

  /** Applies one shard's group; what fails for the store's sake comes back in `retry`. */
  async #applyShard(
    shard: number,
    group: DecodedEntry[],
    poisoned: Poisoned[],
    suspects: Set<OperationMessage>,
  ) {
    const db = this.#shards[shard]!;
    try {
      const result = await applyShardBatch(
        db,
        group.map((g) => g.message),
        { mayBeApplied: (message) => suspects.has(message), mayAwaitOrder: this.#mayAwaitOrder() },
      );
      this.#record(result);
      return {
        statuses: result.statuses,
        acked: this.#setAsideAwaitingOrder(group, result.awaitingOrder),
        ended: result.orders.ended,
        awaiting: result.orders.awaiting,
        paid: result.orders.paidOrders,
        retry: [] as DecodedEntry[],
        retryError: undefined as unknown,
      };
    } catch (error) {
      if (isRetryable(error)) {
        return {
          statuses: [],
          acked: [],
          ended: [],
          awaiting: [],
          paid: [],
          retry: group,
          retryError: error,
        };
      }
      // Something in the group fails on its own: apply one by one to find it; the rest go through.
      this.#log.warn(
        { shard, err: (error as Error).message, size: group.length },
        "batch failed; isolating messages",
      );
      const statuses: FinalStatus[] = [];
      const acked: StreamEntry[] = [];
      const ended: EndedOrder[] = [];
      const awaiting: AwaitingOrder[] = [];
      const paid: PaidOrder[] = [];
      const retry: DecodedEntry[] = [];
      let retryError: unknown;
      for (const item of group) {
        try {
          const result = await applyShardBatch(db, [item.message], { mayAwaitOrder: this.#mayAwaitOrder() });
          this.#record(result);
          statuses.push(...result.statuses);
          acked.push(...this.#setAsideAwaitingOrder([item], result.awaitingOrder));
          ended.push(...result.orders.ended);
          awaiting.push(...result.orders.awaiting);
          paid.push(...result.orders.paidOrders);
        } catch (single) {
          if (isRetryable(single)) {
            retry.push(item);
            retryError = single;
          } else {
            this.#onOwnFailure(item.entry, (single as Error).message, poisoned);
          }
        }
      }
      return { statuses, acked, ended, awaiting, paid, retry, retryError };
    }
  }

  #record(result: Awaited<ReturnType<typeof applyShardBatch>>) {
    const now = Date.now();
    this.#metrics.sqlStatements.inc(result.statements);
    this.#metrics.duplicates.inc(result.redelivered);
    for (const { message, status } of result.applied) {
      this.#metrics.applied.inc({ kind: message.kind, status });
      this.#metrics.endToEndSeconds.observe((now - message.createdAt) / 1000);
      if (message.kind === "order" && status === "failed")
        this.#metrics.ordersEnded.inc({ status: "failed" });
    }
    this.#metrics.orderSqlStatements.inc(result.orders.statements);
    this.#metrics.ordersPaid.inc(result.orders.paid);
    for (const { status } of result.orders.endedNow) this.#metrics.ordersEnded.inc({ status });
  }

  /**
   * Sets aside the messages left out to wait for their order (scheduled for a retry with backoff; they stay
   * pending, so another worker claims them if this one dies) and returns the group's other entries, to be
   * acknowledged.
   */
  #setAsideAwaitingOrder(group: DecodedEntry[], waiting: OperationMessage[]): StreamEntry[] {
    if (waiting.length === 0) return group.map((g) => g.entry);
    // By id: a group can hold one entry twice (claimed back as stale and due for its retry in the same tick).
    const left = new Set(waiting.map((message) => message.id));
    const now = Date.now();
    for (const item of group) {
      if (!left.has(item.message.id)) continue;
      const key = entryKey(item.entry);
      const attempts = (this.#awaitingOrder.get(key)?.attempts ?? this.#retriedAwaiting.get(key) ?? 0) + 1;
      if (attempts === 1) {
        this.#log.debug(
          { id: item.entry.operationId, kind: item.message.kind },
          "waits for its order to reach the shard",
        );
      }
      const delay = Math.min(AWAIT_ORDER_RETRY_MS * 2 ** (attempts - 1), AWAIT_ORDER_RETRY_MAX_MS);
      this.#awaitingOrder.set(key, { entry: item.entry, retryAt: now + delay, attempts });
    }
    return group.filter((g) => !left.has(g.message.id)).map((g) => g.entry);
  }

  #mayAwaitOrder(): boolean {
    return this.#awaitingOrder.size < MAX_AWAITING_ORDER;
  }

  #dueAwaitingOrder(now: number): StreamEntry[] {
    const due: StreamEntry[] = [];
    for (const [key, waiting] of this.#awaitingOrder) {
      if (waiting.retryAt > now) continue;
      this.#awaitingOrder.delete(key);
      this.#retriedAwaiting.set(key, waiting.attempts);
      due.push(waiting.entry);
    }
    return due;
  }

  /** The shard, or a store around it, cannot take the group now: back to its lane, retried with backoff. */
  #giveBack(lane: ShardLane, group: DecodedEntry[], error: unknown) {
    lane.attempts += 1;
    const backoff = Math.min(100 * 2 ** lane.attempts, 10_000);
    lane.giveBack(group, backoff * (0.5 + Math.random() / 2));
    this.#metrics.shardRetries.inc({ shard: String(lane.shard) });
    if (lane.attempts === 1 || lane.attempts % 10 === 0) {
      this.#log.warn(
        { shard: lane.shard, attempts: lane.attempts, held: lane.heldCount, err: (error as Error)?.message },
        "shard unavailable; holding its entries and retrying with backoff (other shards go on)",
      );
    }
  }

  async #deadLetter(poisoned: Poisoned[]) {
    if (poisoned.length === 0) return;
    await deadLetter(this.#redis, this.#keys, poisoned, this.#config.statusTtlSeconds);
    this.#metrics.deadLettered.inc(poisoned.length);
    this.#log.warn({ ids: poisoned.map((p) => p.entry.operationId) }, "dead-lettered messages");
  }

  /** A failure of the message itself: dead-letter after MAX_DELIVERIES, else leave it for redelivery. */
  #onOwnFailure(entry: StreamEntry, reason: string, poisoned: Poisoned[]) {
    if (entry.deliveries >= this.#config.maxDeliveries) {
      poisoned.push({ entry, reason });
    } else {
      this.#log.warn(
        { id: entry.operationId, deliveries: entry.deliveries, reason },
        "message failed; will be redelivered",
      );
    }
  }

  async #maintain(now: number) {
    for (const lane of this.#lanes) this.#startLane(lane); // lanes whose backoff is over
    const held = this.#lanes.flatMap((lane) => lane.held());
    if (
      (held.length > 0 || this.#awaitingOrder.size > 0) &&
      now - this.#lastKeepAlive >= this.#config.visibilityTimeoutMs / 3
    ) {
      this.#lastKeepAlive = now;
      const entries = [
        ...held.map((item) => item.entry),
        ...[...this.#awaitingOrder.values()].map((a) => a.entry),
      ];
      // If this fails, another worker may claim them after the visibility timeout: the shard recognises them.
      await keepEntriesClaimed(this.#redis, this.#keys, this.consumer, entries).catch((error: Error) =>
        this.#log.warn(
          { err: error.message, held: entries.length },
          "could not keep held and waiting entries claimed; another worker may take them over",
        ),
      );
    }
    if (now - this.#lastStalledPublish >= PUBLISH_STALLED_EVERY_MS) {
      this.#lastStalledPublish = now;
      const stalled = this.#lanes.reduce((n, lane) => n + (lane.stalled(now) ? lane.heldCount : 0), 0);
      // Only a change is written (and a repeat of a non-zero count, which the gauge forgets when not renewed).
      if (stalled > 0 || this.#publishedStalled > 0) {
        await publishStalledEntries(this.#redis, this.#keys, this.consumer, stalled).then(
          () => {
            this.#publishedStalled = stalled;
          },
          (error: Error) => this.#log.warn({ err: error.message }, "could not publish the stalled entries"),
        );
      }
    }
    if (now - this.#lastTrim >= TRIM_EVERY_MS) {
      this.#lastTrim = now;
      const pipeline = this.#redis.pipeline();
      for (const stream of this.#keys.allStreams()) pipeline.trimAcknowledged(stream, CONSUMER_GROUP);
      // A trim that fails only leaves acknowledged entries for the next one.
      await execOrThrow(pipeline, "stream trim").catch((error: Error) =>
        this.#log.warn({ err: error.message }, "could not trim the streams; the next trim retries"),
      );
    }
  }
}
