import { luaScript, type ScriptArgument } from "../lua-script.ts";
import { scriptAnswers } from "../script-answer.ts";
import type { AdmissionGate } from "./includes/admission-gate.ts";

/** A coupon's discount as the redemption record keeps it. */
export interface CouponDiscount {
  type: "fixed" | "percent";
  value: number;
}

/**
 * What an issue writes in the user's partition slot, here (one Redis, issue-coupon-n.lua) and in commit-coupon-issue-4.lua (the second
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

// One array each for a call's keys and arguments, every request's block after the one before.
const keysOf = (requests: readonly IssueCouponInput[]): string[] => {
  const keys: string[] = [];
  for (const { admission, coupon, record } of requests) {
    keys.push(...admission.keys, coupon.stateKey, coupon.holdersKey, ...recordKeys(record));
  }
  return keys;
};

const argsOf = (requests: readonly IssueCouponInput[]): ScriptArgument[] => {
  const args: ScriptArgument[] = [];
  for (const { admission, record } of requests) args.push(...admission.args, ...recordArgs(record));
  return args;
};

/**
 * issue-coupon-n.lua: whole coupon issues on one Redis, as many as one turn of the intake gathered (their keys
 * span the coupon's and the user's slots; a cluster takes reserve-coupon + commit-coupon-issue instead). One
 * answer per request, in order; codes in IssueCouponCode (packages/reservations).
 */
export const issueCoupons = luaScript({
  file: "issue-coupon-n.lua",
  keys: keysOf,
  args: argsOf,
  decode: scriptAnswers,
});
