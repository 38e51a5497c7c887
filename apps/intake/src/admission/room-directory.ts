// What this process knows of the waiting rooms and of the workers' backlog, refreshed from Redis every 250 ms
// and at once when the config channel announces a change. The request path reads it (which room guards a
// route class or a sale's products and coupons, whether it queues, whether there is backpressure) and never
// asks Redis itself.
import {
  type AdmissionKeys,
  isSaleRoom,
  parseRoomDefinition,
  type RoomDefinition,
  type RoomStats,
  readRoomStats,
} from "@floodgate/admission";
import type { GuardedRouteClass } from "@floodgate/domain";
import type { Cluster, Redis } from "ioredis";

export interface RoomEntry {
  definition: RoomDefinition;
  stats: RoomStats;
}

export interface BacklogSignal {
  backpressure: boolean;
  backlog: number;
  /** Infinity when nothing works the backlog off. */
  drainSeconds: number;
}

/** What a guarded request touches that a sale's room may guard: an order's products, an issue's coupon. */
export interface Touched {
  products?: readonly string[];
  coupon?: string;
}

/** The room that guards a request (none: undefined), or the sale rooms it would need more than one of. */
export type GuardVerdict = { room: RoomEntry | undefined; spans?: never } | { spans: string[] };

const NO_BACKLOG: BacklogSignal = { backpressure: false, backlog: 0, drainSeconds: 0 };

export class RoomDirectory {
  #rooms = new Map<string, RoomEntry>();
  #guards = new Map<GuardedRouteClass, RoomEntry>();
  #productRooms = new Map<string, RoomEntry>();
  #couponRooms = new Map<string, RoomEntry>();
  #backlog: BacklogSignal = NO_BACKLOG;

  /**
   * The room that guards a request touching `touched`: a sale's room that holds what it touches wins over the
   * room guarding its route class whole, which guards the rest. A request touching two sales' rooms has no one
   * room to be checked against (its script reads one gate): `spans` names them. A room with mode off guards
   * nothing.
   */
  guardFor(routeClass: GuardedRouteClass, touched: Touched | undefined): GuardVerdict {
    let found: RoomEntry | undefined;
    let spans: Set<string> | undefined;
    const note = (room: RoomEntry | undefined) => {
      if (room === undefined || room === found) return;
      if (found === undefined) {
        found = room;
        return;
      }
      spans ??= new Set([found.definition.roomId]);
      spans.add(room.definition.roomId);
    };
    if (touched !== undefined) {
      for (const productId of touched.products ?? []) note(this.#productRooms.get(productId));
      if (touched.coupon !== undefined) note(this.#couponRooms.get(touched.coupon));
    }
    if (spans) return { spans: [...spans].sort() };
    return { room: found ?? this.#guards.get(routeClass) };
  }

  room(roomId: string): RoomEntry | undefined {
    return this.#rooms.get(roomId);
  }

  rooms(): RoomEntry[] {
    return [...this.#rooms.values()];
  }

  /** The leader's event said the room sold out: known here before the next refresh reads it. */
  markSoldOut(roomId: string): void {
    const room = this.#rooms.get(roomId);
    if (room) room.stats = { ...room.stats, soldOut: true };
  }

  get backlog(): BacklogSignal {
    return this.#backlog;
  }

  async refresh(redis: Redis | Cluster, keys: AdmissionKeys): Promise<void> {
    const [roomIds, signal] = await Promise.all([
      redis.smembers(keys.rooms()),
      redis.hgetall(keys.backlogSignal()),
    ]);
    const entries = await Promise.all(
      roomIds.map(async (roomId) => {
        // The definition first: a room with lanes has its lanes' waiting counts read too (their ETAs).
        const definition = parseRoomDefinition(roomId, await redis.hgetall(keys.room(roomId).config));
        if (!definition) return null;
        const stats = await readRoomStats(redis, keys, roomId, Date.now(), definition.lanes.length);
        return { definition, stats };
      }),
    );
    const rooms = new Map<string, RoomEntry>();
    const guards = new Map<GuardedRouteClass, RoomEntry>();
    const productRooms = new Map<string, RoomEntry>();
    const couponRooms = new Map<string, RoomEntry>();
    for (const entry of entries) {
      if (!entry) continue;
      rooms.set(entry.definition.roomId, entry);
      if (entry.definition.mode === "off") continue;
      for (const productId of entry.definition.products) productRooms.set(productId, entry);
      for (const couponId of entry.definition.coupons) couponRooms.set(couponId, entry);
      if (isSaleRoom(entry.definition)) continue;
      for (const routeClass of entry.definition.guards) guards.set(routeClass, entry);
    }
    this.#rooms = rooms;
    this.#guards = guards;
    this.#productRooms = productRooms;
    this.#couponRooms = couponRooms;
    this.#backlog = signal.backpressure
      ? {
          backpressure: signal.backpressure === "1",
          backlog: Number(signal.backlog),
          drainSeconds:
            signal.drainSeconds === "inf" ? Number.POSITIVE_INFINITY : Number(signal.drainSeconds),
        }
      : NO_BACKLOG;
  }
}
