// Requests as the intake's routes build them, for the tests that call the reservations directly: a coupon
// issue's message and an order's request, each id carrying the user's bucket and the creation time.
import { type CouponIssueMessage, newOperationId } from "@floodgate/domain";
import { type QueueKeys, unlimitedAdmission } from "@floodgate/queue";
import { bucketForUser } from "@floodgate/shard-router";
import type { ReserveOrderRequest } from "../../src/index.ts";

/** The per-user cap on unpaid units these orders run with (a product without its own). */
export const DEFAULT_CAP = 10;

/** How long an order's state outlives it. */
export const ORDER_STATE_TTL_SECONDS = 3_600;

export function couponIssueMessage(couponId: string, userId: string): CouponIssueMessage {
  const createdAt = Date.now();
  return {
    v: 1,
    kind: "coupon_issue",
    id: newOperationId("coupon_issue", bucketForUser(userId), createdAt),
    userId,
    couponId,
    createdAt,
  };
}

/** An order of `items` as orders-route.ts builds one, unlimited by admission; `extra` overrides any field. */
export function orderRequest(
  keys: QueueKeys,
  userId: string,
  items: ReserveOrderRequest["items"],
  extra: Partial<ReserveOrderRequest> = {},
) {
  const createdAt = Date.now();
  return {
    orderId: newOperationId("order", bucketForUser(userId), createdAt),
    userId,
    items,
    currency: "EUR",
    createdAt,
    expiresAt: createdAt + 900_000,
    fingerprint: `fp-${userId}-${JSON.stringify(items)}-${extra.couponIssueId ?? ""}`,
    idempotencyTtlSeconds: 600,
    orderStateTtlSeconds: ORDER_STATE_TTL_SECONDS,
    defaultMaxUnitsPerUser: DEFAULT_CAP,
    unpaidUnitsTtlSeconds: 4_500,
    admission: unlimitedAdmission(keys, userId),
    ...extra,
  } satisfies ReserveOrderRequest;
}
