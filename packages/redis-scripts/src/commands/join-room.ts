import { luaScript } from "../lua-script.ts";
import {
  type QueueingRoomKeys,
  queueingRoomKeys,
  type TicketReading,
  ticketReading,
} from "./includes/room-tickets.ts";

export interface JoinRoomInput extends QueueingRoomKeys {
  /** The id a new ticket gets (minted by the caller); unused when the user's ticket is still live. */
  ticketId: string;
  userId: string;
}

export type JoinRoomResult =
  /** joined: a new ticket; existing: the user's live ticket (waiting, pre-queue or admitted), unchanged. */
  | { result: "joined" | "existing"; ticketId: string; ticket: TicketReading }
  /** The room has no config: nothing written. */
  | { result: "unknown_room" }
  /** closed: the room's endsAt has come; rejecting: its method is reject. Nothing written. */
  | { result: "closed" }
  | { result: "rejecting" };

type JoinRoomReply = [-1 | -2 | -3, ""] | [1 | 2, string, string, string, string, string, string];

/**
 * join-room-9.lua: one place per user in a waiting room. Code 1 a new ticket, 2 the user's ticket (unchanged),
 * -1 no such room, -2 closed (endsAt has come), -3 rejecting (method reject).
 */
export const joinRoom = luaScript({
  file: "join-room-9.lua",
  keys: (input: JoinRoomInput) => queueingRoomKeys(input),
  args: (input: JoinRoomInput) => [input.ticketId, input.userId],
  decode: (reply: JoinRoomReply): JoinRoomResult => {
    const code = Number(reply[0]);
    if (code === -1) return { result: "unknown_room" };
    if (code === -2) return { result: "closed" };
    if (code === -3) return { result: "rejecting" };
    const [, ticketId, status, position, joinedAt, admittedAt, expiresAt] = reply as string[];
    return {
      result: code === 1 ? "joined" : "existing",
      ticketId: ticketId!,
      ticket: ticketReading(status, position, joinedAt, admittedAt, expiresAt),
    };
  },
});
