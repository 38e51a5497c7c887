import { luaScript } from "../lua-script.ts";
import type { RoomKeys } from "./includes/room-tickets.ts";

export interface EndSessionsInput
  extends Pick<RoomKeys, "ticketsKey" | "sessionsKey" | "unreservedKey" | "endedKey"> {
  /** Where the ends are published, for the intakes holding the tickets' WebSockets. */
  eventChannel: string;
  roomId: string;
  /** Tickets of this room whose sessions end now (a ticket no longer admitted is left as it is). */
  ticketIds: string[];
}

/**
 * end-sessions-4.lua: ends admitted sessions of one room whose orders ended (one call per room, all its tickets
 * at once): they leave the live count and the unreserved set (a reserved session's mark stays until the tick
 * after next at most: includes/session-end.lua). Answers how many ended now.
 */
export const endSessions = luaScript({
  file: "end-sessions-4.lua",
  keys: (input: EndSessionsInput) => [
    input.ticketsKey,
    input.sessionsKey,
    input.unreservedKey,
    input.endedKey,
  ],
  args: (input: EndSessionsInput) => [input.eventChannel, input.roomId, ...input.ticketIds],
  decode: (reply: number): number => reply,
});
