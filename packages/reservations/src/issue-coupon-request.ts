// A coupon issue as both paths take it (issue-coupon.ts on one Redis, issue-coupon-in-two-steps.ts on a Redis
// Cluster): its Idempotency-Key, and what it writes in the user's slot.
import { type CouponDefinition, type CouponIssueMessage, encodeOperationMessage } from "@floodgate/domain";
import type { QueueKeys } from "@floodgate/queue";
import type { CouponIssueRecord } from "@floodgate/redis-scripts";

export interface IssueCouponIdempotency {
  /** The request's Idempotency-Key, if it sent one. */
  key?: string;
  /** Hash of the request (coupon, user), compared on replays of the key. */
  fingerprint: string;
  ttlSeconds: number;
}

/** What an issue writes in the user's slot, as both paths' scripts take it. */
export function couponIssueRecord(
  keys: QueueKeys,
  message: CouponIssueMessage,
  discount: CouponDefinition["discount"],
  idempotency: IssueCouponIdempotency,
): CouponIssueRecord {
  const partition = keys.partitionForUser(message.userId);
  return {
    statusKey: keys.status(partition, message.id),
    streamKey: keys.stream(partition),
    redemptionKey: keys.couponIssue(partition, message.id),
    idempotencyKey: keys.idempotency(partition, message.userId, idempotency.key ?? ""),
    issueId: message.id,
    userId: message.userId,
    encodedMessage: encodeOperationMessage(message),
    couponId: message.couponId,
    discount,
    fingerprint: idempotency.fingerprint,
    idempotencyTtlSeconds: idempotency.key === undefined ? 0 : idempotency.ttlSeconds,
  };
}
