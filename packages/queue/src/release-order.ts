import type { OrderLine } from "@floodgate/domain";
import type { ScriptedPipeline } from "@floodgate/redis-scripts";
import type { QueueKeys } from "./queue-keys.ts";
import { NO_COUPON } from "./reserve-order.ts";

export interface OrderRelease {
  orderId: string;
  userId: string;
  items: Pick<OrderLine, "productId" | "quantity">[];
  couponIssueId?: string | null;
}

/**
 * Adds to a pipeline one release-order-n.lua call per order that ended without a sale: its stock and coupon
 * return to Redis and its units stop counting against the user's cap, once (a redelivered release finds
 * `released` set and changes nothing).
 */
export function queueOrderReleases(pipeline: ScriptedPipeline, keys: QueueKeys, releases: OrderRelease[]) {
  for (const release of releases) {
    const partition = keys.partitionForUser(release.userId);
    const releaseKeys = [
      keys.orderState(partition, release.orderId),
      keys.couponIssue(partition, release.couponIssueId ?? NO_COUPON),
      ...release.items.map((item) => keys.productState(item.productId)),
      ...release.items.map((item) => keys.unpaidUnits(item.productId, release.userId)),
    ];
    pipeline.releaseOrder(
      releaseKeys.length,
      ...releaseKeys,
      release.orderId,
      ...release.items.map((item) => item.quantity),
    );
  }
}
