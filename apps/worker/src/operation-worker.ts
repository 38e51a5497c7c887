// The consume loop: read a batch across all partitions, apply it with one transaction per shard (shards in
// parallel), write final statuses and acknowledge in one Redis round trip. Entries of a shard that is down
// stay with this worker and are retried with backoff; the other shards go on.
// Orders add two steps around the shard transactions, both on the global database and both idempotent: the
// batch's stock is reserved (one statement) before, and the stock of orders that ended is released after;
// Redis gets the releases (and paid orders' unpaid units) in the same round trip as the statuses, and BullMQ
// the expiry jobs before it.
import type { Config } from "@floodgate/config";
import type { GlobalDatabase, ShardDatabase } from "@floodgate/db";
import type { OperationMessage, OrderMessage } from "@floodgate/domain";
import type { WorkerMetrics } from "@floodgate/metrics";
import {
  CONSUMER_GROUP,
  claimStaleEntries,
  createRedis,
  ensureConsumerGroups,
  execOrThrow,
  type FinalStatus,
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
import { moveStock } from "./orders/stock-ledger.ts";
import { type DecodedEntry, mayBeApplied, sortByShard } from "./shard-groups.ts";

const READ_BLOCK_MS = 100;
// A payment or end request whose order another worker is applying right now: first retried after 250 ms, then
// less and less often (a made-up order id must not cost a lookup every 250 ms for its whole minute).
const AWAIT_ORDER_RETRY_MS = 250;
const AWAIT_ORDER_RETRY_MAX_MS = 5_000;
const MAX_AWAITING_ORDER = 10_000; // past this many waiting messages, no more may wait (mayAwaitOrder)
const TRIM_EVERY_MS = 5000;
const MAX_HELD_ENTRIES = 50_000; // stop reading while this many wait for a down shard

interface HeldShard {
  entries: DecodedEntry[];
  attempts: number;
  retryAt: number;
}

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
  readonly #held = new Map<number, HeldShard>();
  /** Payments and end requests left out of their batch as their order is not on its shard yet, by entry id. */
  readonly #awaitingOrder = new Map<string, { entry: StreamEntry; retryAt: number; attempts: number }>();
  /**
   * Entries of waiting messages retried in this tick, with their attempts so far: looked up first (another
   * worker may have applied one), and backed off further if they wait again.
   */
  readonly #retriedAwaiting = new Map<string, number>();
  #stopping = false;
  #loop: Promise<void> | undefined;
  #lastClaim = 0;
  #lastTrim = 0;
  #lastKeepAlive = 0;

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
    this.#global = pools.global;
    this.#expiry = new OrderExpiry(config, log);
  }

  async start(): Promise<void> {
    await Promise.all([waitForRedis(this.#redis), waitForRedis(this.#reader)]);
    await ensureConsumerGroups(this.#redis, this.#keys);
    this.#expiry.startFiring(this.#redis, this.#keys, this.#metrics);
    this.#loop = this.#run();
  }

  /** Finishes the batch in flight (applied and acknowledged), then closes connections. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#loop;
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
        // Redis away or an unexpected bug: nothing was acknowledged, so nothing is lost; pause and go on.
        this.#log.error({ err: error }, "worker iteration failed; retrying in 1 s");
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
    if (this.#held.size > 0) {
      const count = [...this.#held.values()].reduce((n, h) => n + h.entries.length, 0);
      this.#log.warn(
        { count },
        "stopping with entries held for unreachable shards; another worker will claim them",
      );
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
    const heldCount = [...this.#held.values()].reduce((n, h) => n + h.entries.length, 0);
    if (heldCount < MAX_HELD_ENTRIES) {
      const perPartition = Math.max(16, Math.ceil(this.#config.batchSize / this.#keys.partitions));
      const block = this.#held.size > 0 ? 20 : READ_BLOCK_MS;
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
      await new Promise((resolve) => setTimeout(resolve, READ_BLOCK_MS));
    }
    await this.#process(entries);
    await this.#maintain(now);
  }

  async #process(entries: StreamEntry[]): Promise<void> {
    const started = performance.now();
    const { byShard, undecodable } = sortByShard(entries, this.#map);
    const poisoned: Poisoned[] = [];
    for (const { entry, reason } of undecodable) this.#onOwnFailure(entry, reason, poisoned);

    // Shards whose backoff is over are retried with their held entries first (stream order is kept).
    const now = Date.now();
    for (const [shard, held] of this.#held) {
      const fresh = byShard.get(shard) ?? [];
      if (held.retryAt <= now) {
        byShard.set(shard, [...held.entries, ...fresh]);
      } else {
        held.entries.push(...fresh); // keep order: nothing of this shard runs before its held entries
        byShard.delete(shard);
      }
    }
    if (byShard.size === 0 && poisoned.length === 0) return;
    const messages = [...byShard.values()].flatMap((group) => group.map((item) => item.message));
    await this.#reserveStock(byShard, poisoned);

    const statuses: FinalStatus[] = [];
    const acked: StreamEntry[] = [];
    const ended: EndedOrder[] = [];
    const awaiting: AwaitingOrder[] = [];
    const paid: PaidOrder[] = [];
    await Promise.all(
      [...byShard].map(async ([shard, group]) => {
        const outcome = await this.#applyShard(shard, group, poisoned);
        statuses.push(...outcome.statuses);
        acked.push(...outcome.acked);
        ended.push(...outcome.ended);
        awaiting.push(...outcome.awaiting);
        paid.push(...outcome.paid);
      }),
    );
    ended.push(...deadLetteredOrders(poisoned));
    const endedOnce = [...new Map(ended.map((order) => [order.orderId, order])).values()];
    // Before the acknowledgement: if either fails, the entries are redelivered and these steps redone (the
    // ledger and the job ids make them idempotent).
    if (endedOnce.length > 0) {
      await moveStock(this.#global, "release", endedOnce);
      this.#metrics.orderSqlStatements.inc();
    }
    await this.#expiry.schedule(awaiting);

    if (statuses.length > 0 || acked.length > 0 || endedOnce.length > 0) {
      // Releases, settlements of paid orders' unpaid units, status, publish and XACK after the commit, in one
      // round trip; the settlements before the statuses, so a client that sees its payment succeed finds its
      // units free for its next order. A crash before this line only means a redelivery, which the shard
      // recognises by id.
      const pipeline = this.#redis.pipeline();
      queueOrderReleases(pipeline, this.#keys, endedOnce);
      queueUnpaidSettlements(pipeline, this.#keys, paid);
      queueFinishedOperations(
        pipeline,
        this.#keys,
        { statuses, acknowledged: acked, changedOrders: ordersChangedBy(statuses, messages) },
        this.#config.statusTtlSeconds,
      );
      // A failure here leaves the entries unacknowledged: they are redelivered, the shard recognises them, and
      // the statuses, releases and acknowledgement are written again (each is idempotent).
      await execOrThrow(pipeline, `final statuses and acknowledgement of ${acked.length} entries`);
    }
    await deadLetter(this.#redis, this.#keys, poisoned, this.#config.statusTtlSeconds);
    if (poisoned.length > 0) {
      this.#metrics.deadLettered.inc(poisoned.length);
      this.#log.warn({ ids: poisoned.map((p) => p.entry.operationId) }, "dead-lettered messages");
    }
    if (acked.length > 0) {
      this.#metrics.batchSize.observe(acked.length);
      this.#metrics.batchSeconds.observe((performance.now() - started) / 1000);
    }
  }

  /** Applies one shard's group. Returns what to acknowledge; holds the group when the shard is unreachable. */
  async #applyShard(shard: number, group: DecodedEntry[], poisoned: Poisoned[]) {
    const db = this.#shards[shard]!;
    try {
      const suspects = new Set(
        group
          .filter((g) => mayBeApplied(g) || this.#retriedAwaiting.has(g.entry.entryId))
          .map((g) => g.message),
      );
      const result = await applyShardBatch(
        db,
        group.map((g) => g.message),
        { mayBeApplied: (message) => suspects.has(message), mayAwaitOrder: this.#mayAwaitOrder() },
      );
      this.#held.delete(shard);
      this.#record(result);
      return {
        statuses: result.statuses,
        acked: this.#setAsideAwaitingOrder(group, result.awaitingOrder),
        ended: result.orders.ended,
        awaiting: result.orders.awaiting,
        paid: result.orders.paidOrders,
      };
    } catch (error) {
      if (isRetryable(error)) {
        this.#hold(shard, group, error as Error, "replace");
        return { statuses: [], acked: [], ended: [], awaiting: [], paid: [] };
      }
      // Something in the group fails on its own: apply one by one to find it; the rest go through.
      this.#held.delete(shard);
      this.#log.warn(
        { shard, err: (error as Error).message, size: group.length },
        "batch failed; isolating messages",
      );
      const statuses: FinalStatus[] = [];
      const acked: StreamEntry[] = [];
      const ended: EndedOrder[] = [];
      const awaiting: AwaitingOrder[] = [];
      const paid: PaidOrder[] = [];
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
            this.#hold(shard, [item], single as Error, "append");
          } else {
            this.#onOwnFailure(item.entry, (single as Error).message, poisoned);
          }
        }
      }
      return { statuses, acked, ended, awaiting, paid };
    }
  }

  /**
   * Moves the global stock of every order about to be applied, in one statement, before the shard
   * transactions. A shard group whose orders cannot be reserved now (global database away) is held like a
   * shard that is down; an order that fails on its own (stock drift) is left unacknowledged for redelivery
   * and, after MAX_DELIVERIES, dead-lettered, while the rest of its group goes on.
   */
  async #reserveStock(byShard: Map<number, DecodedEntry[]>, poisoned: Poisoned[]) {
    const orders = (group: DecodedEntry[]) =>
      group.filter((item): item is DecodedEntry & { message: OrderMessage } => item.message.kind === "order");
    const all = [...byShard.values()].flatMap(orders);
    if (all.length === 0) return;
    try {
      await moveStock(
        this.#global,
        "reserve",
        all.map((item) => ({ orderId: item.message.id, items: item.message.items })),
      );
      this.#metrics.orderSqlStatements.inc();
      return;
    } catch (error) {
      if (isRetryable(error)) {
        for (const [shard, group] of byShard) {
          if (orders(group).length === 0) continue;
          this.#hold(shard, group, error as Error, "replace");
          byShard.delete(shard);
        }
        return;
      }
      this.#log.warn(
        { err: (error as Error).message, orders: all.length },
        "stock reservation failed; isolating orders",
      );
    }
    const shardOf = new Map<DecodedEntry, number>();
    for (const [shard, group] of byShard) for (const item of group) shardOf.set(item, shard);
    for (const item of all) {
      const shard = shardOf.get(item)!;
      if (!byShard.has(shard)) continue; // its shard's group is held: it is retried with it
      try {
        await moveStock(this.#global, "reserve", [{ orderId: item.message.id, items: item.message.items }]);
        this.#metrics.orderSqlStatements.inc();
      } catch (error) {
        if (isRetryable(error)) {
          // Not this order's fault (a lock timeout, a dropped connection): its shard's group waits and retries,
          // as when the whole batch's reservation fails that way. Dead-lettering it would release stock and
          // mark failed an order that may already be on its shard.
          this.#hold(shard, byShard.get(shard)!, error as Error, "replace");
          byShard.delete(shard);
          continue;
        }
        this.#log.error(
          { id: item.message.id, err: (error as Error).message },
          "cannot reserve this order's stock in Postgres (stock drift? run ./floodgate reconcile)",
        );
        for (const [shard, group] of byShard) {
          const rest = group.filter((g) => g !== item);
          if (rest.length === group.length) continue;
          if (rest.length === 0) byShard.delete(shard);
          else byShard.set(shard, rest);
        }
        this.#onOwnFailure(item.entry, (error as Error).message, poisoned);
      }
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
      const { entryId } = item.entry;
      const attempts =
        (this.#awaitingOrder.get(entryId)?.attempts ?? this.#retriedAwaiting.get(entryId) ?? 0) + 1;
      if (attempts === 1) {
        this.#log.debug(
          { id: item.entry.operationId, kind: item.message.kind },
          "waits for its order to reach the shard",
        );
      }
      const delay = Math.min(AWAIT_ORDER_RETRY_MS * 2 ** (attempts - 1), AWAIT_ORDER_RETRY_MAX_MS);
      this.#awaitingOrder.set(entryId, { entry: item.entry, retryAt: now + delay, attempts });
    }
    return group.filter((g) => !left.has(g.message.id)).map((g) => g.entry);
  }

  #mayAwaitOrder(): boolean {
    return this.#awaitingOrder.size < MAX_AWAITING_ORDER;
  }

  #dueAwaitingOrder(now: number): StreamEntry[] {
    this.#retriedAwaiting.clear();
    const due: StreamEntry[] = [];
    for (const [entryId, waiting] of this.#awaitingOrder) {
      if (waiting.retryAt > now) continue;
      this.#awaitingOrder.delete(entryId);
      this.#retriedAwaiting.set(entryId, waiting.attempts);
      due.push(waiting.entry);
    }
    return due;
  }

  /** `replace`: the group already holds the shard's earlier held entries (they were retried with it). */
  #hold(shard: number, group: DecodedEntry[], error: Error, mode: "replace" | "append") {
    const held = this.#held.get(shard) ?? { entries: [], attempts: 0, retryAt: 0 };
    // The failed transaction may have committed before its answer was lost: the retry looks the ids up.
    for (const item of group) item.attempted = true;
    held.entries = mode === "replace" ? group : [...held.entries, ...group];
    held.attempts += 1;
    const backoff = Math.min(100 * 2 ** held.attempts, 10_000);
    held.retryAt = Date.now() + backoff * (0.5 + Math.random() / 2);
    this.#held.set(shard, held);
    this.#metrics.shardRetries.inc({ shard: String(shard) });
    if (held.attempts === 1 || held.attempts % 10 === 0) {
      this.#log.warn(
        { shard, attempts: held.attempts, held: held.entries.length, err: error.message },
        "shard unreachable; holding its entries and retrying with backoff (other shards go on)",
      );
    }
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
    const holding = this.#held.size > 0 || this.#awaitingOrder.size > 0;
    if (holding && now - this.#lastKeepAlive >= this.#config.visibilityTimeoutMs / 3) {
      this.#lastKeepAlive = now;
      const entries = [
        ...[...this.#held.values()].flatMap((h) => h.entries.map((e) => e.entry)),
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
