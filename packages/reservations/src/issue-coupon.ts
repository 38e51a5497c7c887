import type { CouponDefinition, CouponIssueMessage } from "@floodgate/domain";
import type { AdmissionCheck, QueueKeys } from "@floodgate/queue";
import { acceptInTurn, NO_REPLICA_WAIT, type ReplicaWait } from "@floodgate/redis-connections";
import { issueCoupons, ONE_REDIS_GROUP, type ScriptedRedis } from "@floodgate/redis-scripts";
import { issueCouponInTwoSteps } from "./issue-coupon-in-two-steps.ts";
import { couponIssueOutcome, type IssueCouponOutcome } from "./issue-coupon-outcome.ts";
import { couponIssueRecord, type IssueCouponIdempotency } from "./issue-coupon-request.ts";

/** For callers outside the HTTP edge (tests, tools): one coupon per user already makes an issue idempotent. */
const WITHOUT_IDEMPOTENCY_KEY: IssueCouponIdempotency = { fingerprint: "", ttlSeconds: 0 };

/**
 * The intake's whole Redis budget for a coupon issue on one Redis: ONE script call (admission, window, one per
 * user, count, status and XADD), shared with the issues of the same turn (turn-batches.ts in
 * @floodgate/redis-scripts). Do not add calls here; put new checks inside the Lua script. With REDIS_WAIT_REPLICAS
 * an accepted issue is answered once its master's next replica confirmation covers it (replica-wait.ts in
 * @floodgate/redis-connections).
 */
export function issueCoupon(
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
  const input = {
    admission,
    coupon: {
      stateKey: keys.couponState(message.couponId),
      holdersKey: keys.couponHolders(message.couponId),
    },
    record: couponIssueRecord(keys, message, discount, idempotency),
  };
  const stream = keys.stream(partition);
  return acceptInTurn(redis, replicaWait, stream, issueCoupons, ONE_REDIS_GROUP, input, couponIssueOutcome);
}
