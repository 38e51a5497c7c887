import { type CouponDefinition, type CouponIssueMessage, encodeOperationMessage } from "@floodgate/domain";
import type { ScriptedRedis } from "@floodgate/redis-scripts";
import {
  type AdmissionCheck,
  type AdmissionInfo,
  type AdmissionRefusal,
  admissionInfo,
  admissionRefusal,
} from "./admission-check.ts";
import type { QueueKeys } from "./queue-keys.ts";

/** The return codes of issue-coupon-9.lua, the one place they are named (admission codes aside). */
export const IssueCouponCode = {
  accepted: 1,
  unknownCoupon: -1,
  notOpenYet: -2,
  closed: -3,
  alreadyIssued: -4,
  soldOut: -5,
} as const;

export type IssueCouponOutcome =
  | { result: "accepted"; id: string; admission: AdmissionInfo | null }
  | { result: "unknown_coupon" }
  | { result: "not_open"; opensAt: number }
  | { result: "closed"; closedAt: number }
  | { result: "already_issued"; existingId: string }
  | { result: "sold_out" }
  | AdmissionRefusal;

/**
 * The intake's whole Redis budget for a coupon issue: ONE script call (admission, window, one per user, count,
 * status and XADD). Do not add calls here; put new checks inside the Lua script.
 */
export async function issueCoupon(
  redis: ScriptedRedis,
  keys: QueueKeys,
  message: CouponIssueMessage,
  discount: CouponDefinition["discount"],
  admission: AdmissionCheck,
): Promise<IssueCouponOutcome> {
  const partition = keys.partitionForUser(message.userId);
  const [code, value, info] = await redis.issueCoupon(
    ...admission.keys,
    keys.couponState(message.couponId),
    keys.couponHolders(message.couponId),
    keys.status(partition, message.id),
    keys.stream(partition),
    keys.couponIssue(partition, message.id),
    ...admission.args,
    message.id,
    message.userId,
    encodeOperationMessage(message),
    message.couponId,
    discount.type,
    discount.value,
  );
  switch (code) {
    case IssueCouponCode.accepted:
      return { result: "accepted", id: value, admission: admissionInfo(info) };
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
    default: {
      const refusal = admissionRefusal(code, value);
      if (refusal) return refusal;
      throw new Error(`issue-coupon-9.lua returned an unknown code ${code}`);
    }
  }
}
