import { decodeOperationMessage } from "@floodgate/domain";
import {
  type FinalStatus,
  type QueueKeys,
  queueFinishedOperations,
  type StatusTtls,
  type StreamEntry,
} from "@floodgate/queue";
import { execOrThrow, type ScriptedRedis } from "@floodgate/redis-connections";

import type { EndedOrder } from "./orders/order-outcomes.ts";

export interface Poisoned {
  entry: StreamEntry;
  reason: string;
}

/**
 * Moves messages that failed MAX_DELIVERIES times for a reason of their own to the dead-letter stream, marks
 * their operation failed, and acknowledges them. No call spans hash slots (Redis Cluster): the copies go to
 * the dead-letter stream first, in one MULTI in its slot; only then does each partition get its own MULTI
 * (first-failure keys deleted, statuses failed, entries acknowledged), so none is acknowledged without its
 * copy. A failure after the copies leaves those entries pending: they come back and are dead-lettered again,
 * so the stream may hold an entry twice (never none); `./floodgate dlq` settles the copies of one operation
 * together, and a replay is applied once by its shard whatever the copies.
 */
export async function deadLetter(
  redis: ScriptedRedis,
  keys: QueueKeys,
  poisoned: Poisoned[],
  ttls: StatusTtls,
) {
  if (poisoned.length === 0) return;
  // When each first failed (lane-batch.ts records it on a failure that is not yet the last), read before the
  // copies: a message that failed only now began failing now. One GET per key, sent together (each key is
  // in its partition's slot; a cluster client sends them to their nodes).
  const firstFailures = await Promise.all(
    poisoned.map(({ entry }) =>
      redis.get(keys.firstFailure(entry.partition, entry.operationId)).then(
        (value) => value ?? String(Date.now()),
        () => String(Date.now()),
      ),
    ),
  );
  const copies = redis.multi();
  for (const [i, { entry, reason }] of poisoned.entries()) {
    copies.xadd(
      keys.deadLetters(),
      "*",
      "id",
      entry.operationId,
      "partition",
      entry.partition,
      "entryId",
      entry.entryId,
      "deliveries",
      entry.deliveries,
      "reason",
      reason,
      "firstFailedAt",
      firstFailures[i]!,
      "m",
      entry.payload,
    );
  }
  await execOrThrow(copies, `copying ${poisoned.length} entries to the dead letters`);
  const failures = (
    await Promise.allSettled(
      [...byPartition(keys, poisoned)].map(([partition, group]) => {
        const multi = redis.multi();
        if (group.firstFailureKeys.length > 0) multi.del(...group.firstFailureKeys);
        // Its statuses and acknowledgements are all in this partition, so this adds one script call (and
        // the publish of these statuses).
        queueFinishedOperations(multi, keys, { statuses: group.statuses, acknowledged: group.entries }, ttls);
        return execOrThrow(
          multi,
          `acknowledging ${group.entries.length} dead-lettered entries of partition ${partition}`,
        );
      }),
    )
  ).filter((result) => result.status === "rejected");
  // A MULTI does not roll back a command that failed: the partitions that failed keep their entries pending.
  if (failures.length > 0) throw (failures[0] as PromiseRejectedResult).reason;
}

interface PartitionWork {
  entries: StreamEntry[];
  firstFailureKeys: string[];
  statuses: FinalStatus[];
}

/**
 * What each partition's MULTI does: an entry is acknowledged (and its first-failure key deleted) in the
 * partition it was read from; its status is written in the partition its id names (the same one, unless the
 * id does not parse: then there is no status to write).
 */
function byPartition(keys: QueueKeys, poisoned: Poisoned[]): Map<number, PartitionWork> {
  const work = new Map<number, PartitionWork>();
  const of = (partition: number) => {
    let group = work.get(partition);
    if (group === undefined) {
      group = { entries: [], firstFailureKeys: [], statuses: [] };
      work.set(partition, group);
    }
    return group;
  };
  for (const { entry } of poisoned) {
    const read = of(entry.partition);
    read.entries.push(entry);
    read.firstFailureKeys.push(keys.firstFailure(entry.partition, entry.operationId));
    const named = keys.partitionForOperation(entry.operationId);
    if (named === null) continue;
    of(named).statuses.push({
      id: entry.operationId,
      status: "failed",
      failureReason: "dead_lettered",
      completedAt: Date.now(),
    });
  }
  return work;
}

/**
 * The orders among messages about to be dead-lettered: they will never reach their shard, so what they
 * reserved (Redis stock and coupon, and global stock if the batch got that far) must be given back.
 */
export function deadLetteredOrders(poisoned: Poisoned[]): EndedOrder[] {
  const orders: EndedOrder[] = [];
  for (const { entry } of poisoned) {
    try {
      const message = decodeOperationMessage(entry.payload, entry.operationId);
      if (message.kind !== "order") continue;
      orders.push({
        orderId: message.id,
        userId: message.userId,
        items: message.items,
        couponIssueId: message.couponIssueId ?? null,
        status: "failed",
        session: message.session ?? null,
      });
    } catch {
      // Undecodable: it reserved nothing we could name.
    }
  }
  return orders;
}
