import { luaScript } from "../lua-script.ts";
import { type ScriptAnswer, type ScriptAnswerReply, scriptAnswer } from "../script-answer.ts";
import { type AdmissionGate, gateArgs, gateKeys } from "./includes/admission-gate.ts";

/** A coupon's discount as the redemption record keeps it. */
export interface CouponDiscount {
  type: "fixed" | "percent";
  value: number;
}

/**
 * What an issue writes in the user's partition slot, here (one Redis) and in commit-coupon-issue-4.lua (the second
 * step on a cluster): the same keys and fields, in the same order.
 */
export interface CouponIssueRecord {
  /** {p}:op:<issueId>. */
  statusKey: string;
  /** {p}:ops, the user's partition stream. */
  streamKey: string;
  /** {p}:cis:<issueId>, read by an order that redeems the coupon. */
  redemptionKey: string;
  /** {p}:idem:<userId>:<Idempotency-Key>; ignored when idempotencyTtlSeconds is 0. */
  idempotencyKey: string;
  issueId: string;
  userId: string;
  /** The stream entry's `m` field and the status hash's `message` field. */
  encodedMessage: string;
  couponId: string;
  discount: CouponDiscount;
  fingerprint: string;
  /** 0 without an Idempotency-Key. */
  idempotencyTtlSeconds: number;
}

export const recordKeys = (record: CouponIssueRecord): string[] => [
  record.statusKey,
  record.streamKey,
  record.redemptionKey,
  record.idempotencyKey,
];

export const recordArgs = (record: CouponIssueRecord): (string | number)[] => [
  record.issueId,
  record.userId,
  record.encodedMessage,
  record.couponId,
  record.discount.type,
  record.discount.value,
  record.fingerprint,
  record.idempotencyTtlSeconds,
];

export interface IssueCouponInput {
  admission: AdmissionGate;
  coupon: {
    /** {cpn_...}:coupon: quantity, startsAt, endsAt, issued. */
    stateKey: string;
    /** {cpn_...}:holders: userId -> issue id. */
    holdersKey: string;
  };
  record: CouponIssueRecord;
}

/**
 * issue-coupon-9.lua: a whole coupon issue on one Redis (its keys span the coupon's and the user's slots; a
 * cluster takes reserve-coupon + commit-coupon-issue instead). Codes in IssueCouponCode (packages/reservations).
 */
export const issueCoupon = luaScript({
  file: "issue-coupon-9.lua",
  keys: ({ admission, coupon, record }: IssueCouponInput) =>
    gateKeys(admission, coupon.stateKey, coupon.holdersKey, ...recordKeys(record)),
  args: ({ admission, record }: IssueCouponInput) => gateArgs(admission, ...recordArgs(record)),
  decode: (reply: ScriptAnswerReply): ScriptAnswer => scriptAnswer(reply),
});
