import { luaScript } from "../lua-script.ts";
import { type ScriptAnswer, type ScriptAnswerReply, scriptAnswer } from "../script-answer.ts";
import { type AdmissionGate, oneShotCommitArgs } from "./includes/admission-gate.ts";
import { type CouponIssueRecord, recordArgs, recordKeys } from "./issue-coupon.ts";

export interface CommitCouponIssueInput {
  record: CouponIssueRecord;
  /** reserve-coupon's reservedAtMs. */
  reservedAtMs: number;
  /** A commit later than this after the reservation writes nothing (-101). */
  commitWindowMs: number;
  /** The first step's gate: a one-shot room's token is consumed here, with the issue's record. */
  admission?: AdmissionGate;
}

/**
 * commit-coupon-issue-4.lua: the user's slot records a reserved issue, as issue-coupon-n.lua writes it on one
 * Redis. code 1 recorded, 0 the key's request recorded meanwhile, a replayed refusal, -100 a key conflict, -101
 * too late (nothing written), -91 "used" (a one-shot token used since the first step).
 */
export const commitCouponIssue = luaScript({
  file: "commit-coupon-issue-4.lua",
  keys: ({ record }: CommitCouponIssueInput) => recordKeys(record),
  args: (input: CommitCouponIssueInput) => [
    ...recordArgs(input.record),
    input.reservedAtMs,
    input.commitWindowMs,
    ...oneShotCommitArgs(input.admission),
  ],
  decode: (reply: ScriptAnswerReply): ScriptAnswer => scriptAnswer(reply),
});
