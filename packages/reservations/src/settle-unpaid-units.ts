// The other way an order stops counting against its user's cap: it was paid (release-order.ts is the
// way of an order that ended without a sale).

import type { QueueKeys } from "@floodgate/queue";
import { type ScriptedRedis, settleUnpaidUnits } from "@floodgate/redis-scripts";
import type { OrderRelease } from "./release-order.ts";

/** An order a batch found paid: its units no longer count against the user's cap. */
export type PaidOrder = Pick<OrderRelease, "orderId" | "userId" | "items">;

/**
 * One settle-unpaid-units-n.lua call per paid order, all at once, each its own command (never pipelined with
 * another order's: on a cluster a pipeline may not span slots). Idempotent (the order's `unpaid` mark goes with
 * the first), so a batch sends it for every paid order its payments name, redeliveries included.
 */
export async function settlePaidOrders(
  redis: ScriptedRedis,
  keys: QueueKeys,
  paid: PaidOrder[],
): Promise<void> {
  await Promise.all(
    paid.map((order) =>
      settleUnpaidUnits.run(redis, {
        orderStateKey: keys.orderState(keys.partitionForUser(order.userId), order.orderId),
        lines: order.items.map((item) => ({
          unpaidUnitsKey: keys.unpaidUnits(item.productId, order.userId),
          quantity: item.quantity,
        })),
      }),
    ),
  );
}
