// The Redis side of a coupon: what issue-coupon-n.lua reads (quantity, window in epoch ms) and counts
// (issued). Written once when the coupon is created; the script alone changes it after that.
import type { CouponDefinition } from "@floodgate/domain";
import type { QueueKeys } from "@floodgate/queue";
import type { ScriptedRedis } from "@floodgate/redis-scripts";

/**
 * Writes the state of a new coupon. HSETNX on `quantity` first: a coupon id is fresh, but if it were ever
 * written twice the issued count must not be reset. Returns false when state already existed.
 */
export async function writeCouponState(
  redis: ScriptedRedis,
  keys: QueueKeys,
  coupon: Pick<CouponDefinition, "id" | "quantity" | "startsAt" | "endsAt">,
): Promise<boolean> {
  const key = keys.couponState(coupon.id);
  const replies = await redis
    .multi()
    .hsetnx(key, "quantity", coupon.quantity)
    .hsetnx(key, "startsAt", coupon.startsAt ?? "")
    .hsetnx(key, "endsAt", coupon.endsAt ?? "")
    .hsetnx(key, "issued", 0)
    .exec();
  return replies?.[0]?.[1] === 1;
}

/**
 * Issued counts of these coupons (0 for one without state), in one round trip: one HGET per coupon (each its own
 * slot), all sent at once, which an auto-pipelined connection writes once per node.
 */
export async function readIssuedCounts(
  redis: ScriptedRedis,
  keys: QueueKeys,
  couponIds: string[],
): Promise<number[]> {
  const issued = await Promise.all(couponIds.map((id) => redis.hget(keys.couponState(id), "issued")));
  return issued.map((value) => Number(value ?? 0));
}

export async function deleteCouponState(redis: ScriptedRedis, keys: QueueKeys, couponId: string) {
  await redis.del(keys.couponState(couponId), keys.couponHolders(couponId));
}
