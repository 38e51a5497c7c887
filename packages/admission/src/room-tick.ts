// One tick of one room (admit-room-13.lua, through its wrapper in @floodgate/redis-scripts): the leader runs it
// about every 100 ms; tests run it directly. Every key is the room's, so it runs on a Redis Cluster: the leader
// is fenced by its epoch, which the room keeps, rather than by reading the lease (leader-lease.ts).
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { type AdmitRoomResult, admitRoom } from "@floodgate/redis-scripts";
import type { AdmissionKeys } from "./admission-keys.ts";
import { orderClosedRound } from "./pre-queue-order.ts";
import { roomScriptKeys } from "./room-script-keys.ts";

/** Tickets a tick may look at per step: bounds a tick's time in Redis whatever the queue's length. */
export const TICK_STEP_LIMIT = 5000;

/**
 * How long a ticket that ended (expired, abandoned, revoked) stays readable before the tick forgets it: long
 * enough for a polling page to learn how its ticket ended, short enough that a room's Redis memory follows the
 * people in it rather than everyone who ever joined.
 */
export const ENDED_TICKET_RETENTION_MS = 60 * 60 * 1000;

export interface RoomTick {
  roomId: string;
  queueing: boolean;
  waiting: number;
  admitted: number;
  ended: number;
}

export type TickOutcome =
  | { result: "ticked"; tick: RoomTick }
  /** A later leader epoch has ticked the room (roomEpoch): nothing changed. */
  | { result: "deposed"; roomEpoch: number }
  /** The room is listed but its definition is not written (yet): nothing changed. */
  | { result: "undefined_room" };

export interface TickOptions {
  /** The leader's epoch (holdLeaderLease): a room refuses an epoch below the highest it has seen. */
  epoch: number;
  backpressure: boolean;
  cooldownMs: number;
  /** Defaults to ENDED_TICKET_RETENTION_MS. */
  endedRetentionMs?: number;
  /** A room selling products: the units left (read just before) and its admitBeyondStock. */
  stock?: { unitsLeft: number; admitBeyondStock: number; soldOut: boolean } | null;
  /** A room whose admitPerSecond is "auto": the rate the leader set for it (auto-admit-rate.ts). */
  autoAdmitPerSecond?: number | null;
}

/**
 * One tick; when it closed a pre-queue round (or one still awaits its order), the round is ordered here, once
 * (pre-queue-order.ts), and the room ticked again so the ordered round starts moving without waiting a round.
 */
export async function tickRoom(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  roomId: string,
  options: TickOptions,
): Promise<TickOutcome> {
  const first = await tickOnce(redis, keys, roomId, options);
  if (first.result !== "ticked" || !first.awaitsOrder) return stripped(roomId, first);
  const ordered = await orderClosedRound(redis, keys, roomId, options.epoch);
  if (ordered !== "published") return stripped(roomId, first);
  const second = await tickOnce(redis, keys, roomId, options);
  if (second.result !== "ticked") return stripped(roomId, first);
  return stripped(roomId, {
    ...second,
    admitted: first.admitted + second.admitted,
    ended: first.ended + second.ended,
  });
}

function stripped(roomId: string, tick: AdmitRoomResult): TickOutcome {
  if (tick.result !== "ticked") return tick;
  const { queueing, waiting, admitted, ended } = tick;
  return { result: "ticked", tick: { roomId, queueing, waiting, admitted, ended } };
}

function tickOnce(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  roomId: string,
  options: TickOptions,
): Promise<AdmitRoomResult> {
  return admitRoom.run(redis, {
    ...roomScriptKeys(keys.room(roomId)),
    leaderEpoch: options.epoch,
    backpressure: options.backpressure,
    cooldownMs: options.cooldownMs,
    eventChannel: keys.roomEventsChannel(),
    roomId,
    stepLimit: TICK_STEP_LIMIT,
    endedRetentionMs: options.endedRetentionMs ?? ENDED_TICKET_RETENTION_MS,
    stock: options.stock ?? null,
    autoAdmitPerSecond: options.autoAdmitPerSecond ?? null,
  });
}
