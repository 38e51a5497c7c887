import { decodeOperationMessage } from "@floodgate/domain";
import {
  execOrThrow,
  type FinalStatus,
  type QueueKeys,
  queueFinishedOperations,
  type ScriptedPipeline,
  type ScriptedRedis,
  type StreamEntry,
} from "@floodgate/queue";

import type { EndedOrder } from "./orders/order-outcomes.ts";

export interface Poisoned {
  entry: StreamEntry;
  reason: string;
}

/**
 * Moves messages that failed MAX_DELIVERIES times for a reason of their own to the dead-letter stream, marks
 * their operation failed, and acknowledges them, in one MULTI so none is acknowledged without its copy.
 */
export async function deadLetter(
  redis: ScriptedRedis,
  keys: QueueKeys,
  poisoned: Poisoned[],
  statusTtlSeconds: number,
) {
  if (poisoned.length === 0) return;
  // When each first failed (lane-batch.ts records it on a failure that is not yet the last), read before the
  // MULTI: a message that failed only now began failing now.
  const firstFailureKeys = poisoned.map(({ entry }) => keys.firstFailure(entry.partition, entry.operationId));
  const reads = redis.pipeline();
  for (const key of firstFailureKeys) reads.get(key);
  const firstFailures = ((await reads.exec()) ?? []).map(([error, value]) =>
    error === null && typeof value === "string" ? value : String(Date.now()),
  );
  const multi = redis.multi() as ScriptedPipeline; // the scripts are there at run time (defineScripts)
  for (const [i, { entry, reason }] of poisoned.entries()) {
    multi.xadd(
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
      firstFailures[i] ?? String(Date.now()),
      "m",
      entry.payload,
    );
  }
  multi.del(...firstFailureKeys);
  const statuses: FinalStatus[] = poisoned
    .filter(({ entry }) => keys.partitionForOperation(entry.operationId) !== null)
    .map(({ entry }) => ({
      id: entry.operationId,
      status: "failed",
      failureReason: "dead_lettered",
      completedAt: Date.now(),
    }));
  queueFinishedOperations(
    multi,
    keys,
    { statuses, acknowledged: poisoned.map((p) => p.entry) },
    statusTtlSeconds,
  );
  // MULTI does not roll back a command that failed: if any did, this throws and the entries stay pending, come
  // back, and are dead-lettered again (the dead-letter stream may then hold an entry twice; never none).
  await execOrThrow(multi, `dead-lettering ${poisoned.length} entries`);
}

/**
 * The orders among messages about to be dead-lettered: they will never reach their shard, so what they
 * reserved (Redis stock and coupon, and global stock if the batch got that far) must be given back.
 */
export function deadLetteredOrders(poisoned: Poisoned[]): EndedOrder[] {
  const orders: EndedOrder[] = [];
  for (const { entry } of poisoned) {
    try {
      const message = decodeOperationMessage(entry.payload);
      if (message.kind !== "order") continue;
      orders.push({
        orderId: message.id,
        userId: message.userId,
        items: message.items,
        couponIssueId: message.couponIssueId ?? null,
        status: "failed",
      });
    } catch {
      // Undecodable: it reserved nothing we could name.
    }
  }
  return orders;
}
