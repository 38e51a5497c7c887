// The other way an order stops counting against its user's cap: it was paid (release-order.ts is the
// way of an order that ended without a sale).

import type { OrderSession } from "@floodgate/domain";
import type { QueueKeys } from "@floodgate/queue";
import { type ScriptedRedis, settleProductUnits, settleUnpaidUnits } from "@floodgate/redis-scripts";
import { endedSessionPass, type OrderRelease, type SessionPassesKey } from "./release-order.ts";

/** An order a batch found paid: its units no longer count against the user's cap. */
export type PaidOrder = Pick<OrderRelease, "orderId" | "userId" | "items"> & {
  /** The waiting-room session it was accepted with: checkout done, the session ends (room-sessions.ts). */
  session?: OrderSession | null;
};

/**
 * One settle-unpaid-units-n.lua call per paid order (with a waiting-room session: its pass stops admitting in
 * the same call, `passesKey` naming it), and one settle-product-units-1.lua per product of it (its
 * units no longer unpaid in the product's state, which a sale's room reads to tell it is sold out), all at once,
 * each its own command (never pipelined with another's: on a cluster a pipeline may not span slots). Idempotent
 * (the order's `unpaid` mark and its field in each product's state go with the first), so a batch sends them for
 * every paid order its payments name, redeliveries included.
 */
export async function settlePaidOrders(
  redis: ScriptedRedis,
  keys: QueueKeys,
  paid: PaidOrder[],
  passesKey?: SessionPassesKey,
): Promise<void> {
  await Promise.all(
    paid.flatMap((order) => [
      settleUnpaidUnits.run(redis, {
        ...withEndedSession(order, passesKey),
        orderStateKey: keys.orderState(keys.partitionForUser(order.userId), order.orderId),
        lines: order.items.map((item) => ({
          unpaidUnitsKey: keys.unpaidUnits(item.productId, order.userId),
          quantity: item.quantity,
        })),
      }),
      ...settleOrderProducts(redis, keys, order.orderId, order.items),
    ]),
  );
}

const withEndedSession = (order: PaidOrder, passesKey: SessionPassesKey | undefined) => {
  const endedSession = endedSessionPass(order, passesKey);
  return endedSession ? { endedSession } : {};
};

/** settle-product-units-1.lua for each product of an order (each once). */
export function settleOrderProducts(
  redis: ScriptedRedis,
  keys: QueueKeys,
  orderId: string,
  items: readonly Pick<PaidOrder["items"][number], "productId">[],
): Promise<unknown>[] {
  const products = new Set(items.map((item) => item.productId));
  return [...products].map((productId) =>
    settleProductUnits.run(redis, { productStateKey: keys.productState(productId), orderId }),
  );
}
