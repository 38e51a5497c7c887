// One batch of one shard's lane: stock reserved (orders), one transaction on the shard, stock of ended orders
// released, expiry jobs, then in Redis the releases and settlements, the statuses and acknowledgements, and the
// publish (one call per order or partition, never a command across partitions: it runs on a cluster too).
// Settles every entry of the group: done (acknowledged, waiting for its order, or left for redelivery) or
// given back to the lane for a retry with backoff. A worker touches each shard once per batch.
import { AdmissionKeys, endOrderSessions } from "@floodgate/admission";
import { type DoublingBackoff, doublingDelayMs } from "@floodgate/backoff";
import type { Config } from "@floodgate/config";
import { type GlobalDatabase, type ShardDatabase, storeUnavailable } from "@floodgate/db";
import type { OperationMessage } from "@floodgate/domain";
import type { WorkerMetrics } from "@floodgate/metrics";
import { finishOperations, type QueueKeys, type StreamEntry, statusTtls } from "@floodgate/queue";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { ORDER_STATE_GRACE_SECONDS, releaseOrders, settlePaidOrders } from "@floodgate/reservations";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { AwaitingOrderBook } from "./awaiting-order-book.ts";
import { recordShardBatch } from "./batch-metrics.ts";
import { isRetryable } from "./classify-error.ts";
import { deadLetter, deadLetteredOrders, type Poisoned } from "./dead-letter.ts";
import { ordersChangedBy } from "./orders/order-changes.ts";
import type { OrderExpiry } from "./orders/order-expiry.ts";
import { sessionsOf } from "./orders/order-session.ts";
import { reserveLaneStock } from "./orders/reserve-lane-stock.ts";
import { moveStock } from "./orders/stock-ledger.ts";
import { applyOnShard, nothingApplied } from "./shard-apply.ts";
import { type DecodedEntry, mayBeApplied } from "./shard-groups.ts";
import type { ShardLane } from "./shard-lane.ts";
import type { SubscribedTypes } from "./webhooks/event-recording.ts";

/**
 * A day: far longer than MAX_DELIVERIES redeliveries take. A message that failed once and then went through
 * leaves its record to expire (deleting it would cost every finished operation a command).
 */
const FIRST_FAILURE_TTL_SECONDS = 86_400;

/**
 * A group given back waits 200 ms after its shard's first failure in a row, twice as long after each next one,
 * up to 10 s; each wait spread over its upper half, so the lanes of a shard that failed them all together
 * do not all come back together.
 */
const SHARD_RETRY: DoublingBackoff = { firstMs: 200, maxMs: 10_000, jitter: "equal" };

export interface LaneBatchDependencies {
  config: Config;
  log: Logger;
  metrics: WorkerMetrics;
  keys: QueueKeys;
  redis: ScriptedRedis;
  shards: Kysely<ShardDatabase>[];
  global: Kysely<GlobalDatabase>;
  expiry: OrderExpiry;
  awaitingOrder: AwaitingOrderBook;
  /** Webhook event types some enabled endpoint wants, read at each batch (the list is refreshed). */
  webhookEvents?: () => SubscribedTypes;
  /** A shard refused a batch because one of its buckets moved away: the map is read again at once. */
  onBucketMoved(): void;
}

export class LaneBatchRunner {
  readonly #deps: LaneBatchDependencies;
  readonly #admissionKeys: AdmissionKeys;

  constructor(deps: LaneBatchDependencies) {
    this.#deps = deps;
    this.#admissionKeys = new AdmissionKeys(deps.keys);
  }

  /** A session's pass, closed by the order's release or settlement in the user's slot (no call of its own). */
  readonly #passesKey = (roomId: string, userId: string) => this.#admissionKeys.roomPasses(roomId, userId);

  async run(lane: ShardLane, group: DecodedEntry[]): Promise<void> {
    const { config, log, metrics, keys, redis, global, expiry, awaitingOrder } = this.#deps;
    const started = performance.now();
    const poisoned: Poisoned[] = [];
    const onOwnFailure = (entry: StreamEntry, reason: string) => this.onOwnFailure(entry, reason, poisoned);
    const suspects = new Set<OperationMessage>(
      group.filter((g) => mayBeApplied(g) || awaitingOrder.isRetried(g)).map((g) => g.message),
    );
    let outcome = nothingApplied();
    try {
      const reserved = await reserveLaneStock(global, group, {
        onStatement: () => metrics.orderSqlStatements.inc(),
        onOwnFailure: (item, reason) => onOwnFailure(item.entry, reason),
        log,
      });
      if (!Array.isArray(reserved)) {
        this.giveBack(lane, group, reserved.retryError);
        return;
      }
      if (reserved.length > 0) {
        outcome = await applyOnShard(
          {
            db: this.#deps.shards[lane.shard]!,
            shard: lane.shard,
            log,
            awaitingOrder,
            record: (result) => recordShardBatch(metrics, result),
            onOwnFailure,
            webhookEvents: this.#deps.webhookEvents?.(),
            onBucketMoved: this.#deps.onBucketMoved,
          },
          reserved,
          suspects,
        );
      }
      const ended = [...outcome.ended, ...deadLetteredOrders(poisoned)];
      const endedOnce = [...new Map(ended.map((order) => [order.orderId, order])).values()];
      // Before the acknowledgement: if either fails, the entries are retried and these steps redone (the
      // ledger and the job ids make them idempotent).
      if (endedOnce.length > 0) {
        await moveStock(global, "release", endedOnce);
        metrics.orderSqlStatements.inc();
      }
      await expiry.schedule(outcome.awaiting);
      // Waiting-room sessions whose orders ended or were paid: each leaves its room's live count.
      const sessions = sessionsOf(
        endedOnce,
        outcome.paid,
        outcome.checkedOut.map((session) => ({ session })),
      );
      if (outcome.statuses.length > 0 || outcome.acked.length > 0 || endedOnce.length > 0) {
        // After the commit, in Redis: releases and settlements of paid orders' unpaid units first, and only
        // once they all answered, the statuses and XACKs (per partition), then the publish (finishOperations).
        // Settlements before statuses, so a client that sees its payment succeed finds its units free for its
        // next order: on a cluster the two may be on different nodes, so the order is kept by waiting, not by
        // the order of commands on one connection. A batch without orders waits for nothing extra. A failure
        // here leaves the entries pending: they are retried, the shard recognises them, and all of this is
        // written again (each step is idempotent). Sessions end in one call per room (room-sessions.ts), never
        // one per order.
        await Promise.all([
          releaseOrders(
            redis,
            keys,
            endedOnce,
            config.orderTtlSeconds + ORDER_STATE_GRACE_SECONDS,
            this.#passesKey,
          ),
          settlePaidOrders(redis, keys, outcome.paid, this.#passesKey),
          endOrderSessions(redis, this.#admissionKeys, sessions),
        ]);
        await finishOperations(
          redis,
          keys,
          {
            statuses: outcome.statuses,
            acknowledged: outcome.acked,
            changedOrders: ordersChangedBy(
              outcome.statuses,
              group.map((g) => g.message),
            ),
          },
          statusTtls(config),
        );
      }
      await this.deadLetter(poisoned);
      if (outcome.acked.length > 0) {
        metrics.batchSize.observe(outcome.acked.length);
        metrics.batchSeconds.observe((performance.now() - started) / 1000);
      }
    } catch (error) {
      // Redis or the global database failed after the shard: nothing of the group is settled yet but the
      // shard's commit; all of it is retried (recognised on the shard), except what failed on its own. A
      // failure that is no store's is a bug: retried all the same (nothing is lost), and said loudly.
      if (!isRetryable(error) && !storeUnavailable(error, "redis")) {
        log.error({ err: error, shard: lane.shard }, "lane batch failed after its commit; retrying it");
      }
      const own = new Set(poisoned.map((p) => p.entry));
      this.giveBack(
        lane,
        group.filter((g) => !own.has(g.entry)),
        error,
      );
      lane.done(group.filter((g) => own.has(g.entry)));
      return;
    }
    const retried = new Set(outcome.retry);
    const settled = group.filter((g) => !retried.has(g));
    awaitingOrder.settled(settled);
    lane.done(settled);
    if (outcome.retry.length > 0) this.giveBack(lane, outcome.retry, outcome.retryError);
    else lane.attempts = 0;
  }

  /** The shard, or a store around it, cannot take the group now: back to its lane, retried with backoff. */
  giveBack(lane: ShardLane, group: DecodedEntry[], error: unknown): void {
    lane.attempts += 1;
    lane.giveBack(group, doublingDelayMs(SHARD_RETRY, lane.attempts));
    this.#deps.metrics.shardRetries.inc({ shard: String(lane.shard) });
    if (lane.attempts === 1 || lane.attempts % 10 === 0) {
      this.#deps.log.warn(
        { shard: lane.shard, attempts: lane.attempts, held: lane.heldCount, err: (error as Error)?.message },
        "shard unavailable; holding its entries and retrying with backoff (other shards go on)",
      );
    }
  }

  async deadLetter(poisoned: Poisoned[]): Promise<void> {
    if (poisoned.length === 0) return;
    const { redis, keys, config, metrics, log } = this.#deps;
    await deadLetter(redis, keys, poisoned, statusTtls(config));
    metrics.deadLettered.inc(poisoned.length);
    log.warn({ ids: poisoned.map((p) => p.entry.operationId) }, "dead-lettered messages");
  }

  /** A failure of the message itself: dead-letter after MAX_DELIVERIES, else leave it for redelivery. */
  onOwnFailure(entry: StreamEntry, reason: string, poisoned: Poisoned[]): void {
    if (entry.deliveries >= this.#deps.config.maxDeliveries) {
      poisoned.push({ entry, reason });
    } else {
      this.#deps.log.warn(
        { id: entry.operationId, deliveries: entry.deliveries, reason },
        "message failed; will be redelivered",
      );
      // Off the hot path (a message's own failure is rare): the first failure's time, for its dead letter.
      const { redis, keys, log } = this.#deps;
      redis
        .set(
          keys.firstFailure(entry.partition, entry.operationId),
          Date.now(),
          "EX",
          FIRST_FAILURE_TTL_SECONDS,
          "NX",
        )
        .catch((error: Error) =>
          log.warn({ id: entry.operationId, err: error.message }, "could not record a first failure"),
        );
    }
  }
}
