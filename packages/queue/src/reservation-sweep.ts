// Gives back the units of two-step requests that were reserved but never recorded (two-step-request.ts):
// the intake died, or lost its connection, between the reservation and the commit. A reservation is looked at
// only once it is older than SWEEP_AFTER_MS, far beyond the commit window, so no commit can still be on its way
// (the commit refuses itself after COMMIT_WINDOW_MS by its master's clock; the margin covers the skew between
// masters and this process). Then: the request recorded (its status, or its coupon redemption record or order
// state, exists in the user's slot) -> the reservation is struck off; not recorded -> the unit is released. Both are idempotent, so several
// workers may sweep at once.
import type { ScriptedRedis } from "@floodgate/redis-scripts";
import type { QueueKeys } from "./queue-keys.ts";

export const SWEEP_AFTER_MS = 60_000;
/** Reservations looked at per item per sweep: a backlog larger than this is taken over several sweeps. */
const PER_ITEM = 500;

export interface SweepResult {
  released: number;
  confirmed: number;
}

/** Sweeps the reservations of these coupons older than SWEEP_AFTER_MS at `now` (epoch ms). */
export async function sweepCouponReservations(
  redis: ScriptedRedis,
  keys: QueueKeys,
  couponIds: readonly string[],
  now: number,
): Promise<SweepResult> {
  const result: SweepResult = { released: 0, confirmed: 0 };
  await Promise.all(
    couponIds.map(async (couponId) => {
      const reservations = keys.couponReservations(couponId);
      const stale = await redis.zrangebyscore(
        reservations,
        "-inf",
        now - SWEEP_AFTER_MS,
        "LIMIT",
        0,
        PER_ITEM,
      );
      for (const member of stale) {
        const [issueId = "", userId = ""] = member.split(" ");
        const partition = keys.partitionForOperation(issueId);
        const recorded =
          partition !== null &&
          (await redis.exists(keys.status(partition, issueId), keys.couponIssue(partition, issueId))) > 0;
        if (recorded) {
          result.confirmed += await redis.zrem(reservations, member);
        } else {
          result.released += await redis.releaseCoupon(
            keys.couponState(couponId),
            keys.couponHolders(couponId),
            reservations,
            issueId,
            userId,
          );
        }
      }
    }),
  );
  return result;
}

/** Sweeps the stock reservations of these products older than SWEEP_AFTER_MS at `now` (epoch ms). */
export async function sweepStockReservations(
  redis: ScriptedRedis,
  keys: QueueKeys,
  productIds: readonly string[],
  now: number,
): Promise<SweepResult> {
  const result: SweepResult = { released: 0, confirmed: 0 };
  await Promise.all(
    productIds.map(async (productId) => {
      const reservations = keys.productReservations(productId);
      const stale = await redis.zrangebyscore(
        reservations,
        "-inf",
        now - SWEEP_AFTER_MS,
        "LIMIT",
        0,
        PER_ITEM,
      );
      for (const member of stale) {
        const [orderId = "", userId = "", units = "0"] = member.split(" ");
        const partition = keys.partitionForOperation(orderId);
        const recorded =
          partition !== null &&
          (await redis.exists(keys.status(partition, orderId), keys.orderState(partition, orderId))) > 0;
        if (recorded) {
          result.confirmed += await redis.zrem(reservations, member);
        } else {
          result.released += await redis.releaseStock(
            keys.productState(productId),
            reservations,
            orderId,
            userId,
            Number(units),
          );
        }
      }
    }),
  );
  return result;
}
