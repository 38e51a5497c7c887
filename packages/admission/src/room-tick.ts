// One tick of one room (lua/admit-room-11.lua): the leader runs it about every 100 ms; tests run it directly.
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

export interface TickOptions {
  /** Must hold the leader's lease, or the tick changes nothing (and returns null). */
  instanceId: string;
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
): Promise<RoomTick | null> {
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
    keys.leaderLease(),
    options.instanceId,
    options.backpressure ? "1" : "0",
    options.cooldownMs,
    keys.roomEventsChannel(),
    roomId,
    TICK_STEP_LIMIT,
    options.endedRetentionMs ?? ENDED_TICKET_RETENTION_MS,
  );
  if (Number(reply[0]) !== 1) return null;
  return {
    roomId,
    queueing: reply[1] === "1",
    waiting: Number(reply[2]),
    admitted: Number(reply[3]),
    ended: Number(reply[4]),
  };
}
