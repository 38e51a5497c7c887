// What a coupon issue script answers (issue-coupon-n.lua's codes; the two-step scripts share them), as the
// route's outcome.

import { type AdmissionInfo, type AdmissionRefusal, admissionInfo, admissionRefusal } from "@floodgate/queue";
import type { ScriptAnswer } from "@floodgate/redis-scripts";

/** The return codes of issue-coupon-n.lua, the one place they are named (admission codes aside). */
export const IssueCouponCode = {
  accepted: 1,
  replayed: 0,
  unknownCoupon: -1,
  notOpenYet: -2,
  closed: -3,
  alreadyIssued: -4,
  soldOut: -5,
  conflict: -6,
} as const;

/** A refusal the script decided; `replayed` when it is an Idempotency-Key's recorded first answer. */
export type CouponIssueRefusal = (
  | { result: "not_open"; opensAt: number }
  | { result: "closed"; closedAt: number }
  | { result: "already_issued"; existingId: string }
  | { result: "sold_out" }
) & { replayed: boolean };

export type IssueCouponOutcome =
  | { result: "accepted"; id: string; admission: AdmissionInfo | null }
  | { result: "replayed"; id: string; admission: AdmissionInfo | null }
  | { result: "conflict"; existingId: string }
  | { result: "unknown_coupon" }
  | CouponIssueRefusal
  | AdmissionRefusal;

/** A coupon issue script's reply as the route's outcome (issue-coupon-n.lua's codes; the two-step path shares them). */
export function couponIssueOutcome({
  code,
  value,
  admission: info,
  replayed,
}: ScriptAnswer): IssueCouponOutcome {
  switch (code) {
    case IssueCouponCode.accepted:
      return { result: "accepted", id: value, admission: admissionInfo(info) };
    case IssueCouponCode.replayed:
      return { result: "replayed", id: value, admission: admissionInfo(info) };
    case IssueCouponCode.conflict:
      return { result: "conflict", existingId: value };
    case IssueCouponCode.unknownCoupon:
      return { result: "unknown_coupon" };
    case IssueCouponCode.notOpenYet:
      return { result: "not_open", opensAt: Number(value), replayed };
    case IssueCouponCode.closed:
      return { result: "closed", closedAt: Number(value), replayed };
    case IssueCouponCode.alreadyIssued:
      return { result: "already_issued", existingId: value, replayed };
    case IssueCouponCode.soldOut:
      return { result: "sold_out", replayed };
    default: {
      const refusal = admissionRefusal(code, value);
      if (refusal) return refusal;
      throw new Error(`a coupon issue script returned an unknown code ${code}`);
    }
  }
}
