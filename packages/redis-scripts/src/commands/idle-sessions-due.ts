import { luaScript } from "../lua-script.ts";
import type { RoomKeys } from "./includes/room-tickets.ts";

export interface IdleSessionsDueInput extends Pick<RoomKeys, "sessionsKey" | "ticketsKey" | "stateKey"> {
  /** {room-<id>}:idle: ticket -> when it could next be idle. */
  idleKey: string;
  idleMs: number;
  /** Most sessions taken in or answered per call. */
  limit: number;
}

export interface DueSession {
  ticketId: string;
  userId: string;
  admittedAt: number;
}

/** idle-sessions-due-4.lua: a room's admitted sessions due for a look at their last use. */
export const idleSessionsDue = luaScript({
  file: "idle-sessions-due-4.lua",
  keys: (input: IdleSessionsDueInput) => [input.sessionsKey, input.ticketsKey, input.idleKey, input.stateKey],
  args: (input: IdleSessionsDueInput) => [input.idleMs, input.limit],
  decode: (reply: string[]): DueSession[] => {
    const due: DueSession[] = [];
    for (let i = 0; i + 2 < reply.length; i += 3)
      due.push({ ticketId: reply[i]!, userId: reply[i + 1]!, admittedAt: Number(reply[i + 2]) });
    return due;
  },
});
