// What a room selling products knows of their stock before each tick: the units left (the sum of their
// `available`), read by the leader in each product's own slot (a product's state is never in the room's, so the
// tick, one script in the room's slot, takes it as an argument). Read just before the tick, it can only be
// lower by then (an order placed meanwhile), never higher but by a release or a restock: a tick bounded by it
// admits no more than the units it names. The room is sold out when nothing is left and nothing can come
// back: every product's `available` and `unpaid` (its units in orders not paid yet, which a cancel or an expiry
// returns: includes/product-unpaid-units.lua) are 0. Both are read in one HMGET, so a unit moving from one to
// the other (an order expiring) is never missed between two reads.
import type { QueueKeys } from "@floodgate/queue";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import type { AdmissionKeys } from "./admission-keys.ts";
import type { RoomDefinition } from "./room-definition.ts";

export interface RoomStock {
  unitsLeft: number;
  admitBeyondStock: number;
  /** Nothing left and no unpaid unit that could come back. */
  soldOut: boolean;
}

/** null for a room that sells no products (it admits by rate alone). A product with no state has nothing left. */
export async function readRoomStock(
  redis: ScriptedRedis,
  queueKeys: QueueKeys,
  room: Pick<RoomDefinition, "products" | "admitBeyondStock"> | undefined,
): Promise<RoomStock | null> {
  if (!room || room.products.length === 0) return null;
  const states = await Promise.all(
    room.products.map((productId) => redis.hmget(queueKeys.productState(productId), "available", "unpaid")),
  );
  const units = (value: string | null | undefined) => Math.max(0, Number(value ?? 0));
  const unitsLeft = states.reduce((sum, [available]) => sum + units(available), 0);
  const unpaid = states.reduce((sum, [, held]) => sum + units(held), 0);
  return { unitsLeft, admitBeyondStock: room.admitBeyondStock, soldOut: unitsLeft === 0 && unpaid === 0 };
}

/**
 * An admitted session of a room selling products has reserved: its units are out of the stock now, so it stops
 * counting against it, from the tick after the next (admit-room-13.lua: only then is the reservation surely in the
 * units the leader read). XX: a session that ended meanwhile is not brought back. A mark that is lost leaves the
 * session counted until it ends: the room admits fewer, never more.
 */
export async function markReserved(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  roomId: string,
  ticketId: string,
): Promise<void> {
  await redis.zadd(keys.room(roomId).unreserved, "XX", 0, ticketId);
}
