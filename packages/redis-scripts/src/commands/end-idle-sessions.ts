import { luaScript } from "../lua-script.ts";
import type { RoomKeys } from "./includes/room-tickets.ts";

export interface EndIdleSessionsInput
  extends Pick<RoomKeys, "ticketsKey" | "sessionsKey" | "unreservedKey" | "endedKey"> {
  /** {room-<id>}:idle: ticket -> when it could next be idle. */
  idleKey: string;
  eventChannel: string;
  roomId: string;
  idleMs: number;
  /** Each due session with its last recorded use (null: none recorded). */
  sessions: { ticketId: string; lastUse: number | null }[];
}

export interface EndedIdleSession {
  ticketId: string;
  userId: string;
}

/** end-idle-sessions-5.lua: ends the idle sessions among those given; answers the ones ended now. */
export const endIdleSessions = luaScript({
  file: "end-idle-sessions-5.lua",
  keys: (input: EndIdleSessionsInput) => [
    input.ticketsKey,
    input.sessionsKey,
    input.unreservedKey,
    input.endedKey,
    input.idleKey,
  ],
  args: (input: EndIdleSessionsInput) => [
    input.eventChannel,
    input.roomId,
    input.idleMs,
    ...input.sessions.flatMap((session) => [session.ticketId, session.lastUse ?? ""]),
  ],
  decode: (reply: string[]): EndedIdleSession[] => {
    const ended: EndedIdleSession[] = [];
    for (let i = 0; i + 2 < reply.length; i += 3) ended.push({ ticketId: reply[i]!, userId: reply[i + 1]! });
    return ended;
  },
});
