import { type CouponDefinition, type CouponIssueMessage, encodeOperationMessage } from "@floodgate/domain";
import type { ScriptedRedis } from "@floodgate/redis-scripts";
import type { QueueKeys } from "./queue-keys.ts";

/** The return codes of issue-coupon-5.lua, the one place they are named. */
export const IssueCouponCode = {
  accepted: 1,
  unknownCoupon: -1,
  notOpenYet: -2,
  closed: -3,
  alreadyIssued: -4,
  soldOut: -5,
} as const;

export type IssueCouponOutcome =
  | { result: "accepted"; id: string }
  | { result: "unknown_coupon" }
  | { result: "not_open"; opensAt: number }
  | { result: "closed"; closedAt: number }
  | { result: "already_issued"; existingId: string }
  | { result: "sold_out" };

/**
 * The intake's whole Redis budget for a coupon issue: ONE script call (window, one per user, count, status
 * and XADD). Do not add calls here; put new checks inside the Lua script.
 */
export async function issueCoupon(
  redis: ScriptedRedis,
  keys: QueueKeys,
  message: CouponIssueMessage,
  discount: CouponDefinition["discount"],
): Promise<IssueCouponOutcome> {
  const partition = keys.partitionForUser(message.userId);
  const [code, value] = await redis.issueCoupon(
    keys.couponState(message.couponId),
    keys.couponHolders(message.couponId),
    keys.status(partition, message.id),
    keys.stream(partition),
    keys.couponIssue(partition, message.id),
    message.id,
    message.userId,
    encodeOperationMessage(message),
    message.couponId,
    discount.type,
    discount.value,
  );
  switch (code) {
    case IssueCouponCode.accepted:
      return { result: "accepted", id: value };
    case IssueCouponCode.unknownCoupon:
      return { result: "unknown_coupon" };
    case IssueCouponCode.notOpenYet:
      return { result: "not_open", opensAt: Number(value) };
    case IssueCouponCode.closed:
      return { result: "closed", closedAt: Number(value) };
    case IssueCouponCode.alreadyIssued:
      return { result: "already_issued", existingId: value };
    case IssueCouponCode.soldOut:
      return { result: "sold_out" };
    default:
      throw new Error(`issue-coupon-5.lua returned an unknown code ${code}`);
  }
}
