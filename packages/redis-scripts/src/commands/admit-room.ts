import { luaScript } from "../lua-script.ts";
import { queueingRoomKeys, type RoomKeys } from "./includes/room-tickets.ts";

export interface AdmitRoomInput extends RoomKeys {
  /** The leader's epoch (hold-leader-lease-2.lua; >= 1): a room refuses one below the highest it has seen. */
  leaderEpoch: number;
  /** The workers' backlog is over its limit: an `auto` room starts queueing. */
  backpressure: boolean;
  /** How long an `auto` room stays calm with an empty queue before it stops queueing, ms. */
  cooldownMs: number;
  /** Where the tick publishes what it admitted and ended, for the intakes holding the WebSockets. */
  eventChannel: string;
  roomId: string;
  /** Most tickets to look at per step (bounds the tick's time). */
  stepLimit: number;
  /** How long an ended ticket stays readable before the tick forgets it, ms. */
  endedRetentionMs: number;
  /**
   * The stock of a room selling products: units left now, sessions it may admit beyond them, and whether it is
   * sold out (nothing left, no unpaid unit that could come back).
   */
  stock: { unitsLeft: number; admitBeyondStock: number; soldOut: boolean } | null;
  /** A room whose admitPerSecond is "auto": the rate the leader set for it; null for the others. */
  autoAdmitPerSecond: number | null;
}

export type AdmitRoomResult =
  | {
      result: "ticked";
      queueing: boolean;
      /** Tickets left in the queue and the pre-queue. */
      waiting: number;
      /** Admitted by this tick. */
      admitted: number;
      /** Ended by this tick (sessions expired + places abandoned). */
      ended: number;
      /** A closed pre-queue round waits for the leader to order it (pre-queue-order.ts in @floodgate/admission). */
      awaitsOrder: boolean;
    }
  /** A later leader epoch (roomEpoch) has ticked the room, or leaderEpoch is no epoch: nothing changed. */
  | { result: "deposed"; roomEpoch: number }
  /** The room is listed but has no config (yet): nothing changed. */
  | { result: "undefined_room" };

type AdmitRoomReply = [1, "1" | "0", number, number, number, "1" | "0"] | [-1, number] | [-2];

/** admit-room-13.lua: one tick of a waiting room, run by the admission leader. */
export const admitRoom = luaScript({
  file: "admit-room-13.lua",
  keys: (input: AdmitRoomInput) => [
    ...queueingRoomKeys(input),
    input.endedKey,
    input.orderKey,
    input.unreservedKey,
    input.eventsKey,
  ],
  args: (input: AdmitRoomInput) => [
    input.leaderEpoch,
    input.backpressure ? "1" : "0",
    input.cooldownMs,
    input.eventChannel,
    input.roomId,
    input.stepLimit,
    input.endedRetentionMs,
    input.stock === null ? "" : input.stock.unitsLeft,
    input.stock === null ? 0 : input.stock.admitBeyondStock,
    input.stock?.soldOut ? "1" : "0",
    input.autoAdmitPerSecond ?? "",
  ],
  decode: (reply: AdmitRoomReply): AdmitRoomResult => {
    const code = Number(reply[0]);
    if (code === -1) return { result: "deposed", roomEpoch: Number(reply[1]) };
    if (code !== 1) return { result: "undefined_room" };
    return {
      result: "ticked",
      queueing: reply[1] === "1",
      waiting: Number(reply[2]),
      admitted: Number(reply[3]),
      ended: Number(reply[4]),
      awaitsOrder: reply[5] === "1",
    };
  },
});
