// Gives back the units of two-step requests that were reserved but never recorded (two-step-request.ts):
// the intake died, or lost its connection, between the reservation and the commit. A reservation is looked at
// only once it is older than SWEEP_AFTER_MS, far beyond the commit window, so no commit can still be on its way
// (the commit refuses itself after COMMIT_WINDOW_MS by its master's clock; the margin covers the skew between
// masters and this process). Then: the request recorded (its status, or its coupon redemption record or order
// state, exists in the user's slot) -> the reservation is struck off; not recorded -> the unit is released. Both are idempotent, so several
// workers may sweep at once.

import type { QueueKeys } from "@floodgate/queue";
import { releaseCoupon, releaseStock, type ScriptedRedis } from "@floodgate/redis-scripts";

export const SWEEP_AFTER_MS = 60_000;
/** Reservations looked at per item per sweep: a backlog larger than this is taken over several sweeps. */
const PER_ITEM = 500;

export interface SweepResult {
  released: number;
  confirmed: number;
}

/** Sweeps the reservations of these coupons older than SWEEP_AFTER_MS at `now` (epoch ms). */
export function sweepCouponReservations(
  redis: ScriptedRedis,
  keys: QueueKeys,
  couponIds: readonly string[],
  now: number,
): Promise<SweepResult> {
  return sweep(redis, keys, couponIds, now, {
    reservations: (couponId) => keys.couponReservations(couponId),
    // An issue is recorded by its status and its redemption record.
    recordedBy: (partition, issueId) => [
      keys.status(partition, issueId),
      keys.couponIssue(partition, issueId),
    ],
    release: (couponId, [issueId = "", userId = ""]) =>
      releaseCoupon.run(redis, {
        coupon: {
          stateKey: keys.couponState(couponId),
          holdersKey: keys.couponHolders(couponId),
          reservationsKey: keys.couponReservations(couponId),
        },
        issueId,
        userId,
      }),
  });
}

/** Sweeps the stock reservations of these products older than SWEEP_AFTER_MS at `now` (epoch ms). */
export function sweepStockReservations(
  redis: ScriptedRedis,
  keys: QueueKeys,
  productIds: readonly string[],
  now: number,
): Promise<SweepResult> {
  return sweep(redis, keys, productIds, now, {
    reservations: (productId) => keys.productReservations(productId),
    // An order is recorded by its status and its order state.
    recordedBy: (partition, orderId) => [
      keys.status(partition, orderId),
      keys.orderState(partition, orderId),
    ],
    release: (productId, [orderId = "", userId = "", units = "0"]) =>
      releaseStock.run(redis, {
        product: {
          stateKey: keys.productState(productId),
          reservationsKey: keys.productReservations(productId),
        },
        orderId,
        userId,
        units: Number(units),
      }),
  });
}

interface ReservationKind {
  reservations(itemId: string): string;
  /** Keys in the user's slot of which one exists once the request was recorded. */
  recordedBy(partition: number, requestId: string): [string, string];
  /** Gives the units back (once; false when nothing was listed); the member's fields: request id, user id, and
   * for stock the units. */
  release(itemId: string, member: string[]): Promise<boolean>;
}

async function sweep(
  redis: ScriptedRedis,
  keys: QueueKeys,
  itemIds: readonly string[],
  now: number,
  kind: ReservationKind,
): Promise<SweepResult> {
  const result: SweepResult = { released: 0, confirmed: 0 };
  await Promise.all(
    itemIds.map(async (itemId) => {
      const reservations = kind.reservations(itemId);
      const stale = await redis.zrangebyscore(
        reservations,
        "-inf",
        now - SWEEP_AFTER_MS,
        "LIMIT",
        0,
        PER_ITEM,
      );
      for (const member of stale) {
        const fields = member.split(" ");
        const requestId = fields[0] ?? "";
        const partition = keys.partitionForOperation(requestId);
        const recorded =
          partition !== null && (await redis.exists(...kind.recordedBy(partition, requestId))) > 0;
        if (recorded) result.confirmed += await redis.zrem(reservations, member);
        else if (await kind.release(itemId, fields)) result.released += 1;
      }
    }),
  );
  return result;
}
