// One tick of one room (lua/admit-room-10.lua): the leader runs it about every 100 ms; tests run it directly.
import type { ScriptedRedis } from "@floodgate/queue";
import type { AdmissionKeys } from "./admission-keys.ts";

/** Tickets a tick may look at per step: bounds a tick's time in Redis whatever the queue's length. */
export const TICK_STEP_LIMIT = 5000;

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
    keys.leaderLease(),
    options.instanceId,
    options.backpressure ? "1" : "0",
    options.cooldownMs,
    keys.roomEventsChannel(),
    roomId,
    TICK_STEP_LIMIT,
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
