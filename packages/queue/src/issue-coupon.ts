import { type CouponDefinition, type CouponIssueMessage, encodeOperationMessage } from "@floodgate/domain";
import {
  type CouponIssueRecord,
  issueCoupon as issueCouponScript,
  type ScriptAnswer,
  type ScriptedRedis,
} from "@floodgate/redis-scripts";
import {
  type AdmissionCheck,
  type AdmissionInfo,
  type AdmissionRefusal,
  admissionInfo,
  admissionRefusal,
} from "./admission-check.ts";
import { issueCouponInTwoSteps } from "./issue-coupon-in-two-steps.ts";
import type { QueueKeys } from "./queue-keys.ts";
import { acceptingScript, NO_REPLICA_WAIT, type ReplicaWait } from "./replica-wait.ts";

/** The return codes of issue-coupon-9.lua, the one place they are named (admission codes aside). */
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

export interface IssueCouponIdempotency {
  /** The request's Idempotency-Key, if it sent one. */
  key?: string;
  /** Hash of the request (coupon, user), compared on replays of the key. */
  fingerprint: string;
  ttlSeconds: number;
}

/** For callers outside the HTTP edge (tests, tools): one coupon per user already makes an issue idempotent. */
const WITHOUT_IDEMPOTENCY_KEY: IssueCouponIdempotency = { fingerprint: "", ttlSeconds: 0 };

/**
 * The intake's whole Redis budget for a coupon issue on one Redis: ONE script call (admission, window, one per user, count,
 * status and XADD). Do not add calls here; put new checks inside the Lua script. With REDIS_WAIT_REPLICAS the
 * script's WAIT goes in the same write (replica-wait.ts).
 */
export async function issueCoupon(
  redis: ScriptedRedis,
  keys: QueueKeys,
  message: CouponIssueMessage,
  discount: CouponDefinition["discount"],
  admission: AdmissionCheck,
  idempotency: IssueCouponIdempotency = WITHOUT_IDEMPOTENCY_KEY,
  replicaWait: ReplicaWait = NO_REPLICA_WAIT,
): Promise<IssueCouponOutcome> {
  // A cluster keeps the coupon and the user in two slots: a reservation and a commit instead of one script.
  if (redis.isCluster)
    return issueCouponInTwoSteps(redis, keys, message, discount, admission, idempotency, replicaWait);
  const partition = keys.partitionForUser(message.userId);
  const issue = acceptingScript(redis, replicaWait, issueCouponScript, keys.stream(partition));
  const answer = await issue({
    admission,
    coupon: {
      stateKey: keys.couponState(message.couponId),
      holdersKey: keys.couponHolders(message.couponId),
    },
    record: couponIssueRecord(keys, message, discount, idempotency),
  });
  return couponIssueOutcome(answer);
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

/** A coupon issue script's reply as the route's outcome (issue-coupon-9.lua's codes; the two-step path shares them). */
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
