// One shard's group in one transaction (apply-shard-batch.ts); when the group fails for a reason of one of
// its messages, applied one by one so that message is found and the rest go through. What fails for the
// store's sake (isRetryable) comes back in `retry`, for the lane to retry with backoff.
import type { ShardDatabase } from "@floodgate/db";
import type { OperationMessage, OrderSession } from "@floodgate/domain";
import type { FinalStatus, StreamEntry } from "@floodgate/queue";
import type { PaidOrder } from "@floodgate/reservations";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { type ApplyOptions, applyShardBatch } from "./apply-shard-batch.ts";
import type { AwaitingOrderBook } from "./awaiting-order-book.ts";
import { BucketMovedError } from "./bucket-fence.ts";
import { isRetryable } from "./classify-error.ts";
import type { AwaitingOrder, EndedOrder } from "./orders/order-outcomes.ts";
import type { ShardBatchResult } from "./shard-batch-result.ts";
import { bucketOf, type DecodedEntry } from "./shard-groups.ts";
import type { SubscribedTypes } from "./webhooks/event-recording.ts";

export interface ShardApplyOutcome {
  statuses: FinalStatus[];
  /** Entries to acknowledge: the group's, but for those waiting for their order or retried. */
  acked: StreamEntry[];
  ended: EndedOrder[];
  awaiting: AwaitingOrder[];
  paid: PaidOrder[];
  /** Sessions of orders paid once recorded (the rest come with `ended` and `paid`). */
  checkedOut: OrderSession[];
  retry: DecodedEntry[];
  retryError: unknown;
}

/** An outcome with nothing in it yet (fresh arrays: callers push into them). */
export const nothingApplied = (): ShardApplyOutcome => ({
  statuses: [],
  acked: [],
  ended: [],
  awaiting: [],
  paid: [],
  checkedOut: [],
  retry: [],
  retryError: undefined,
});

export interface ShardApplyContext {
  db: Kysely<ShardDatabase>;
  shard: number;
  log: Logger;
  awaitingOrder: AwaitingOrderBook;
  /** Every result that committed, for the metrics. */
  record(result: ShardBatchResult): void;
  /** A message failed on its own (dead-lettered after MAX_DELIVERIES, else redelivered). */
  onOwnFailure(entry: StreamEntry, reason: string): void;
  /** Webhook event types wanted now (webhooks/webhook-subscriptions.ts). */
  webhookEvents?: SubscribedTypes;
  /** The shard refused the batch: one of its buckets moved away (the worker's map is old). */
  onBucketMoved(): void;
}

/** applyShardBatch behind the shard's bucket fence (bucket-fence.ts: in the batch's own transaction). */
function applyFenced(db: Kysely<ShardDatabase>, group: DecodedEntry[], options: ApplyOptions) {
  return applyShardBatch(
    db,
    group.map((g) => g.message),
    { ...options, buckets: group.map((g) => bucketOf(g.message)) },
  );
}

export async function applyOnShard(
  context: ShardApplyContext,
  group: DecodedEntry[],
  suspects: Set<OperationMessage>,
): Promise<ShardApplyOutcome> {
  const { db, awaitingOrder } = context;
  try {
    const result = await applyFenced(db, group, {
      mayBeApplied: (message) => suspects.has(message),
      mayAwaitOrder: awaitingOrder.mayWait(),
      webhookEvents: context.webhookEvents,
    });
    context.record(result);
    return {
      statuses: result.statuses,
      acked: awaitingOrder.setAside(group, result.awaitingOrder),
      ended: result.orders.ended,
      awaiting: result.orders.awaiting,
      paid: result.orders.paidOrders,
      checkedOut: result.orders.checkedOut,
      retry: [],
      retryError: undefined,
    };
  } catch (error) {
    if (error instanceof BucketMovedError) context.onBucketMoved();
    if (isRetryable(error)) return { ...nothingApplied(), retry: group, retryError: error };
    context.log.warn(
      { shard: context.shard, err: (error as Error).message, size: group.length },
      "batch failed; isolating messages",
    );
    return applyOneByOne(context, group);
  }
}

async function applyOneByOne(context: ShardApplyContext, group: DecodedEntry[]): Promise<ShardApplyOutcome> {
  const outcome = nothingApplied();
  for (const item of group) {
    try {
      const result = await applyFenced(context.db, [item], {
        mayAwaitOrder: context.awaitingOrder.mayWait(),
        webhookEvents: context.webhookEvents,
      });
      context.record(result);
      outcome.statuses.push(...result.statuses);
      outcome.acked.push(...context.awaitingOrder.setAside([item], result.awaitingOrder));
      outcome.ended.push(...result.orders.ended);
      outcome.awaiting.push(...result.orders.awaiting);
      outcome.paid.push(...result.orders.paidOrders);
      outcome.checkedOut.push(...result.orders.checkedOut);
    } catch (single) {
      if (single instanceof BucketMovedError) context.onBucketMoved();
      if (isRetryable(single)) {
        outcome.retry.push(item);
        outcome.retryError = single;
      } else {
        context.onOwnFailure(item.entry, (single as Error).message);
      }
    }
  }
  return outcome;
}
