// An order as both paths take it (reserve-order.ts on one Redis, reserve-order-in-two-steps.ts on a Redis
// Cluster): the request, and the keys and fields its scripts are given in the user's slot.
import { MAX_AMOUNT, type OrderLine } from "@floodgate/domain";
import type { AdmissionCheck, QueueKeys } from "@floodgate/queue";
import type { ReplicaWait } from "@floodgate/redis-connections";
import type { OrderFields, OrderKeys } from "@floodgate/redis-scripts";

export interface ReserveOrderRequest {
  orderId: string;
  userId: string;
  items: Pick<OrderLine, "productId" | "quantity">[];
  couponIssueId?: string;
  currency: string;
  createdAt: number;
  expiresAt: number;
  fingerprint: string;
  idempotencyKey?: string;
  idempotencyTtlSeconds: number;
  orderStateTtlSeconds: number;
  /** The per-user cap on unpaid units of a product that has none of its own (MAX_UNITS_PER_USER). */
  defaultMaxUnitsPerUser: number;
  /** TTL of a user's unpaid-units counter: a safety net; paying or ending an order lowers it. */
  unpaidUnitsTtlSeconds: number;
  /** Rate limits and the waiting room, checked in the same call. */
  admission: AdmissionCheck;
  /** REDIS_WAIT_REPLICAS: replicas that must confirm an accepted order before it counts as accepted. */
  replicaWait?: ReplicaWait;
}

/** Stands in for "no coupon": a key in the user's slot that nothing ever writes. */
export const NO_COUPON = "-";

/**
 * A coupon issue's record lives in its holder's partition (the id names the holder's bucket), which is the
 * orderer's unless someone presents another user's coupon: then the script finds it and says whose it is.
 */
export function couponIssueKey(
  keys: QueueKeys,
  userPartition: number,
  couponIssueId: string | undefined,
): string {
  if (couponIssueId === undefined) return keys.couponIssue(userPartition, NO_COUPON);
  return keys.couponIssue(keys.partitionForOperation(couponIssueId) ?? userPartition, couponIssueId);
}

/** The order's keys in the user's slot, as both order scripts take them. */
export function orderKeysOf(keys: QueueKeys, partition: number, request: ReserveOrderRequest): OrderKeys {
  return {
    idempotencyKey: keys.idempotency(partition, request.userId, request.idempotencyKey ?? ""),
    statusKey: keys.status(partition, request.orderId),
    streamKey: keys.stream(partition),
    orderStateKey: keys.orderState(partition, request.orderId),
    couponRedemptionKey: couponIssueKey(keys, partition, request.couponIssueId),
  };
}

/** The order's fields, as both order scripts take them. */
export function orderFieldsOf(request: ReserveOrderRequest): OrderFields {
  return {
    orderId: request.orderId,
    userId: request.userId,
    fingerprint: request.fingerprint,
    idempotencyTtlSeconds: request.idempotencyKey === undefined ? 0 : request.idempotencyTtlSeconds,
    orderStateTtlSeconds: request.orderStateTtlSeconds,
    createdAt: request.createdAt,
    expiresAt: request.expiresAt,
    currency: request.currency,
    couponIssueId: request.couponIssueId ?? "",
    maxAmount: MAX_AMOUNT,
    defaultMaxUnitsPerUser: request.defaultMaxUnitsPerUser,
    unpaidUnitsTtlSeconds: request.unpaidUnitsTtlSeconds,
  };
}
