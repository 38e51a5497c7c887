import type { OrderLine } from "@floodgate/domain";
import type { ScriptedRedis } from "@floodgate/redis-scripts";
import type { QueueKeys } from "./queue-keys.ts";
import { NO_COUPON } from "./reserve-order.ts";

export interface OrderRelease {
  orderId: string;
  userId: string;
  items: Pick<OrderLine, "productId" | "quantity">[];
  couponIssueId?: string | null;
}

/**
 * One release-order-n.lua call per order that ended without a sale, all at once: its stock and coupon return
 * to Redis and its units stop counting against the user's cap, once (a redelivered release finds `released`
 * set and changes nothing). Each call is its own command, never pipelined with another order's: on a cluster a
 * pipeline may not span slots. (The script itself still spans the order's and its products' slots; the escrow
 * of stock moves those keys into the user's partition.)
 */
export async function releaseOrders(
  redis: ScriptedRedis,
  keys: QueueKeys,
  releases: OrderRelease[],
): Promise<void> {
  await Promise.all(
    releases.map((release) => {
      const partition = keys.partitionForUser(release.userId);
      const releaseKeys = [
        keys.orderState(partition, release.orderId),
        keys.couponIssue(partition, release.couponIssueId ?? NO_COUPON),
        ...release.items.map((item) => keys.productState(item.productId)),
        ...release.items.map((item) => keys.unpaidUnits(item.productId, release.userId)),
      ];
      return redis.releaseOrder(
        releaseKeys.length,
        ...releaseKeys,
        release.orderId,
        ...release.items.map((item) => item.quantity),
      );
    }),
  );
}
