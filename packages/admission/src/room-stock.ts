// What a room selling products knows of their stock before each tick: the units left (the sum of their
// `available`), read by the leader in each product's own slot (a product's state is never in the room's, so the
// tick, one script in the room's slot, takes it as an argument). Read just before the tick, it can only be
// lower by then (an order placed meanwhile), never higher but by a release or a restock: a tick bounded by it
// admits no more than the units it names.
import type { QueueKeys } from "@floodgate/queue";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import type { RoomDefinition } from "./room-definition.ts";

export interface RoomStock {
  unitsLeft: number;
  admitBeyondStock: number;
}

/** null for a room that sells no products (it admits by rate alone). A product with no state has nothing left. */
export async function readRoomStock(
  redis: ScriptedRedis,
  queueKeys: QueueKeys,
  room: Pick<RoomDefinition, "products" | "admitBeyondStock"> | undefined,
): Promise<RoomStock | null> {
  if (!room || room.products.length === 0) return null;
  const available = await Promise.all(
    room.products.map((productId) => redis.hget(queueKeys.productState(productId), "available")),
  );
  const unitsLeft = available.reduce((sum, units) => sum + Math.max(0, Number(units ?? 0)), 0);
  return { unitsLeft, admitBeyondStock: room.admitBeyondStock };
}
