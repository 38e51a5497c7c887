// One tick of one room (lua/admit-room-10.lua): the leader runs it about every 100 ms; tests run it directly.
// Every key is the room's, so it runs on a Redis Cluster: the leader is fenced by its epoch, which the room
// keeps, rather than by reading the lease (leader-lease.ts).
import type { ScriptedRedis } from "@floodgate/queue";
import type { AdmissionKeys } from "./admission-keys.ts";

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
}

export async function tickRoom(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  roomId: string,
  options: TickOptions,
): Promise<TickOutcome> {
  const room = keys.room(roomId);
  const reply = await redis.admitRoom(
    room.config,
    room.state,
    room.queue,
    room.early,
    room.tickets,
    room.users,
    room.seen,
    room.sessions,
    room.admits,
    room.ended,
    options.epoch,
    options.backpressure ? "1" : "0",
    options.cooldownMs,
    keys.roomEventsChannel(),
    roomId,
    TICK_STEP_LIMIT,
    options.endedRetentionMs ?? ENDED_TICKET_RETENTION_MS,
  );
  const code = Number(reply[0]);
  if (code === -1) return { result: "deposed", roomEpoch: Number(reply[1]) };
  if (code !== 1) return { result: "undefined_room" };
  return {
    result: "ticked",
    tick: {
      roomId,
      queueing: reply[1] === "1",
      waiting: Number(reply[2]),
      admitted: Number(reply[3]),
      ended: Number(reply[4]),
    },
  };
}
