// The global stock of a lane batch's orders, moved in one statement before the shard transaction (idempotent:
// the ledger has one row per order and product, so a retried batch moves nothing twice).
import type { GlobalDatabase } from "@floodgate/db";
import type { OrderMessage } from "@floodgate/domain";
import type { Kysely } from "kysely";
import { isRetryable } from "../classify-error.ts";
import type { DecodedEntry } from "../shard-groups.ts";
import { moveStock } from "./stock-ledger.ts";

export interface ReserveHooks {
  /** Once per statement run. */
  onStatement(): void;
  /** An order whose reservation fails for its own reason (stock drift). */
  onOwnFailure(item: DecodedEntry, reason: string): void;
  log: { warn(object: object, message: string): void; error(object: object, message: string): void };
}

/**
 * Returns the group to apply, or the error when its orders cannot be reserved now (global database away: the
 * group is retried like a shard that is down). An order that fails on its own is left out, unacknowledged for
 * redelivery and, after MAX_DELIVERIES, dead-lettered, while the rest of its group goes on.
 */
export async function reserveLaneStock(
  global: Kysely<GlobalDatabase>,
  group: DecodedEntry[],
  hooks: ReserveHooks,
): Promise<DecodedEntry[] | { retryError: unknown }> {
  const orders = group.filter(
    (item): item is DecodedEntry & { message: OrderMessage } => item.message.kind === "order",
  );
  if (orders.length === 0) return group;
  try {
    await moveStock(
      global,
      "reserve",
      orders.map((item) => ({ orderId: item.message.id, items: item.message.items })),
    );
    hooks.onStatement();
    return group;
  } catch (error) {
    if (isRetryable(error)) return { retryError: error };
    hooks.log.warn(
      { err: (error as Error).message, orders: orders.length },
      "stock reservation failed; isolating orders",
    );
  }
  const left = new Set<DecodedEntry>();
  for (const item of orders) {
    try {
      await moveStock(global, "reserve", [{ orderId: item.message.id, items: item.message.items }]);
      hooks.onStatement();
    } catch (error) {
      if (isRetryable(error)) {
        // Not this order's fault (a lock timeout, a dropped connection): the group waits and retries, as when
        // the whole reservation fails that way. Dead-lettering it would release stock and mark failed an order
        // that may already be on its shard.
        return { retryError: error };
      }
      hooks.log.error(
        { id: item.message.id, err: (error as Error).message },
        "cannot reserve this order's stock in Postgres (stock drift? run ./floodgate reconcile)",
      );
      left.add(item);
      hooks.onOwnFailure(item, (error as Error).message);
    }
  }
  return group.filter((item) => !left.has(item));
}
