// A coupon issue on a Redis Cluster. The coupon's counter and holders live in the coupon's slot, the user's
// admission, idempotency record, status and stream in the user's partition slot, and no script may span two
// slots. So the issue is a reservation with a commit (first step: both slots at once, one round trip):
//   1. admit-request-4.lua (user's slot: limits, waiting room, the key's record) beside reserve-coupon-3.lua
//      (coupon's slot: window, one per user, count; holds a unit and lists the reservation);
//   2. commit-coupon-issue-4.lua (user's slot: status, redemption record, stream entry, the key's record), only
//      when both said yes; a refusal from either side gives the held unit back (release-coupon-3.lua);
//   3. after the answer, the reservation is struck off the list (ZREM), the unit now the issue's for good.
// Never more than `quantity` units leave the counter, and one per user: the count and the holder are taken in
// step 1, atomically in the coupon's slot, before anything is recorded. A unit held by an intake that dies
// between steps is given back by a worker's sweep (reservation-sweep.ts in the worker) once it is older than
// any commit can be: until then it counts as issued, so a sale may answer sold out a moment early, never late.
// An accepted issue costs two round trips here (one on one Redis: issue-coupon-n.lua).
import type { CouponDefinition, CouponIssueMessage } from "@floodgate/domain";
import type { QueueKeys } from "@floodgate/queue";
import { type AdmissionCheck, admissionInfo } from "@floodgate/queue";
import { acceptingScript, type ReplicaWait } from "@floodgate/redis-connections";
import {
  admitRequest,
  commitCouponIssue,
  recordRefusal,
  releaseCoupon,
  reserveCoupon,
  type ScriptAnswer,
  type ScriptedRedis,
} from "@floodgate/redis-scripts";
import { couponIssueOutcome, IssueCouponCode, type IssueCouponOutcome } from "./issue-coupon-outcome.ts";
import { couponIssueRecord, type IssueCouponIdempotency } from "./issue-coupon-request.ts";
import { strikeOffReservation } from "./reservation-strike-offs.ts";
import {
  ADMITTED,
  COMMIT_TOO_LATE,
  COMMIT_WINDOW_MS,
  CommitTooLateError,
  KEY_CONFLICT,
  reservationMember,
} from "./two-step-request.ts";

export async function issueCouponInTwoSteps(
  redis: ScriptedRedis,
  keys: QueueKeys,
  message: CouponIssueMessage,
  discount: CouponDefinition["discount"],
  admission: AdmissionCheck,
  idempotency: IssueCouponIdempotency,
  replicaWait: ReplicaWait,
): Promise<IssueCouponOutcome> {
  const record = couponIssueRecord(keys, message, discount, idempotency);
  const { streamKey: stream, idempotencyKey, idempotencyTtlSeconds: ttl } = record;
  const reservation = {
    coupon: {
      stateKey: keys.couponState(message.couponId),
      holdersKey: keys.couponHolders(message.couponId),
      reservationsKey: keys.couponReservations(message.couponId),
    },
    issueId: message.id,
    userId: message.userId,
  };
  // A refusal answers once its unit is back (a refused issue changes nothing); a release that fails is left to
  // the worker's sweep, so it never turns the refusal into an error.
  const release = () => releaseCoupon.run(redis, reservation).catch(() => false);

  const [admitted, reserved] = await Promise.allSettled([
    acceptingScript(
      redis,
      replicaWait,
      admitRequest,
      stream,
    )({
      admission,
      idempotencyKey,
      fingerprint: idempotency.fingerprint,
      idempotencyTtlSeconds: ttl,
    }),
    acceptingScript(redis, replicaWait, reserveCoupon, reservation.coupon.stateKey)(reservation),
  ]);
  const held = reserved.status === "fulfilled" && reserved.value.reservedAtMs !== null;
  if (admitted.status === "rejected" || reserved.status === "rejected") {
    // A reservation whose reply was lost is swept; one that answered is given back now.
    if (held) await release();
    throw admitted.status === "rejected" ? admitted.reason : (reserved as PromiseRejectedResult).reason;
  }
  const admit = admitted.value;
  if (admit.code !== ADMITTED) {
    if (held) await release();
    return userSideAnswer(admit);
  }
  const { code, value, reservedAtMs } = reserved.value;
  if (reservedAtMs === null) {
    if (code === IssueCouponCode.unknownCoupon) return { result: "unknown_coupon" };
    if (ttl === 0) return couponIssueOutcome({ code, value, admission: undefined, replayed: false });
    // The refusal is the request's answer: the key records it, as issue-coupon-n.lua does on one Redis.
    const recorded = await recordRefusal.run(redis, {
      idempotencyKey,
      fingerprint: idempotency.fingerprint,
      idempotencyTtlSeconds: ttl,
      code,
      value,
    });
    return userSideAnswer({ ...recorded, admission: undefined });
  }

  const commit = acceptingScript(redis, replicaWait, commitCouponIssue, stream);
  const committed = await commit({ record, reservedAtMs, commitWindowMs: COMMIT_WINDOW_MS, admission });
  if (committed.code === IssueCouponCode.accepted) {
    // The unit is the issue's: strike the reservation off the list (a sweep would, finding the issue recorded).
    strikeOffReservation(
      redis,
      reservation.coupon.reservationsKey,
      reservationMember(message.id, message.userId),
    );
    return { result: "accepted", id: committed.value, admission: admissionInfo(admit.admission) };
  }
  await release();
  if (committed.code === COMMIT_TOO_LATE) throw new CommitTooLateError(`coupon issue ${message.id}`);
  return userSideAnswer({ ...committed, admission: admit.admission });
}

/** What the user's slot answered instead of going on: a replay, a conflict, or a refusal. */
function userSideAnswer(answer: ScriptAnswer): IssueCouponOutcome {
  return couponIssueOutcome(
    answer.code === KEY_CONFLICT ? { ...answer, code: IssueCouponCode.conflict } : answer,
  );
}
