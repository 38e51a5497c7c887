import type { OrderLine, OrderSession } from "@floodgate/domain";
import type { QueueKeys } from "@floodgate/queue";
import {
  type EndedSessionPass,
  releaseOrder,
  returnStock,
  type ScriptedRedis,
} from "@floodgate/redis-scripts";
import { NO_COUPON } from "./reserve-order-request.ts";

export interface OrderRelease {
  orderId: string;
  userId: string;
  items: Pick<OrderLine, "productId" | "quantity">[];
  couponIssueId?: string | null;
  /** The waiting-room session it was accepted with: its pass stops admitting with the release. */
  session?: OrderSession | null;
}

/** A room's pass key of a user ({p}:pass:<roomId>:<userId>, AdmissionKeys.roomPasses in @floodgate/admission). */
export type SessionPassesKey = (roomId: string, userId: string) => string;

/** The pass an order's end closes, when the order has a session and the caller names the passes. */
export function endedSessionPass(
  order: { userId: string; session?: OrderSession | null },
  passesKey: SessionPassesKey | undefined,
): EndedSessionPass | undefined {
  if (!order.session || passesKey === undefined) return undefined;
  return { passesKey: passesKey(order.session.roomId, order.userId), ticketId: order.session.ticketId };
}

/**
 * Extra life of an order's state in Redis beyond the order's own TTL (ORDER_TTL_SECONDS): longer than any order
 * stays unpaid, so its release still finds what it reserved; a cluster's stock-returned markers live as long.
 */
export const ORDER_STATE_GRACE_SECONDS = 7 * 86_400;

/**
 * One release-order-n.lua call per order that ended without a sale, all at once: its stock and coupon return
 * to Redis and its units stop counting against the user's cap, once (a redelivered release finds `released`
 * set and changes nothing). Each call is its own command, never pipelined with another order's: on a cluster a
 * pipeline may not span slots.
 *
 * On a Redis Cluster the products' stock is in other slots than the order's state: the script runs in the
 * user's slot with stand-ins for the products (keys that never exist, so it returns no stock), then
 * return-stock-2.lua gives each product its units back, once per order and product (a marker in the product's
 * slot that outlives the order's state). It is sent when the release happened now or before, so a release
 * whose worker died before the stock went back completes on redelivery. The marker lives as long as the order's
 * state does from its creation, and is set after it, so while the state exists (a release answers 1 or 0) the
 * marker of an earlier return exists too; once the state has expired (-1) nothing is sent: nothing goes back
 * twice.
 */
export async function releaseOrders(
  redis: ScriptedRedis,
  keys: QueueKeys,
  releases: OrderRelease[],
  orderStateTtlSeconds: number,
  passesKey?: SessionPassesKey,
): Promise<void> {
  await Promise.all(
    releases.map(async (release) => {
      const partition = keys.partitionForUser(release.userId);
      const standIn = keys.couponIssue(partition, NO_COUPON);
      const endedSession = endedSessionPass(release, passesKey);
      const { orderStateFound } = await releaseOrder.run(redis, {
        ...(endedSession ? { endedSession } : {}),
        orderStateKey: keys.orderState(partition, release.orderId),
        couponIssueKey: keys.couponIssue(partition, release.couponIssueId ?? NO_COUPON),
        orderId: release.orderId,
        lines: release.items.map((item) => ({
          productStateKey: redis.isCluster ? standIn : keys.productState(item.productId),
          unpaidUnitsKey: keys.unpaidUnits(item.productId, release.userId),
          quantity: item.quantity,
        })),
      });
      if (!redis.isCluster || !orderStateFound) return;
      const units = new Map<string, number>();
      for (const item of release.items)
        units.set(item.productId, (units.get(item.productId) ?? 0) + item.quantity);
      await Promise.all(
        [...units].map(([productId, quantity]) =>
          returnStock.run(redis, {
            productStateKey: keys.productState(productId),
            markerKey: keys.stockReturned(productId, release.orderId),
            units: quantity,
            markerTtlSeconds: orderStateTtlSeconds,
            orderId: release.orderId,
          }),
        ),
      );
    }),
  );
}
