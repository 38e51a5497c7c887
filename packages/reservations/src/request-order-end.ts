import { newOperationId, type OrderEndReason, parseOperationId } from "@floodgate/domain";
import type { QueueKeys } from "@floodgate/queue";
import { requestOrderEnd as requestOrderEndScript, type ScriptedRedis } from "@floodgate/redis-scripts";

export type OrderEndOutcome =
  | { result: "requested"; endId: string }
  | { result: "already_requested"; endId: string }
  | { result: "unknown_order" }
  | { result: "already_ended" };

/**
 * Queues the end of an order (a cancel, or its expiry) on the order's partition stream, in one script call.
 * Idempotent: only the first request is queued; the worker ends the order only if it still awaits payment.
 */
export async function requestOrderEnd(
  redis: ScriptedRedis,
  keys: QueueKeys,
  orderId: string,
  reason: OrderEndReason,
  nowMs = Date.now(),
  /** Only this user's order may end (a shopper's cancel); undefined: any (the shop's server, the expiry job). */
  ownerUserId?: string,
): Promise<OrderEndOutcome> {
  const parsed = parseOperationId(orderId);
  if (parsed?.kind !== "order") return { result: "unknown_order" };
  const partition = keys.partitionForBucket(parsed.bucket);
  // Same bucket as the order, so the request lands on the order's partition and shard.
  const endId = newOperationId("order_cancel", parsed.bucket, nowMs);
  const requested = await requestOrderEndScript.run(redis, {
    orderStateKey: keys.orderState(partition, orderId),
    statusKey: keys.status(partition, endId),
    streamKey: keys.stream(partition),
    endId,
    orderId,
    reason,
    createdAt: nowMs,
    ownerUserId,
  });
  const { code } = requested;
  if (code === 1) return { result: "requested", endId: requested.endId };
  if (code === 0) return { result: "already_requested", endId: requested.endId };
  if (code === -1) return { result: "unknown_order" };
  if (code === -2) return { result: "already_ended" };
  throw new Error(`request-order-end-3.lua returned an unknown code ${code}`);
}
