import { luaScript } from "../lua-script.ts";
import {
  type QueueingRoomKeys,
  queueingRoomKeys,
  type RoomKeys,
  type TicketReading,
  ticketReading,
} from "./includes/room-tickets.ts";

export interface JoinRoomInput extends QueueingRoomKeys, Pick<RoomKeys, "unreservedKey" | "eventsKey"> {
  /** The id a new ticket gets (minted by the caller); unused when the user's ticket is still live. */
  ticketId: string;
  userId: string;
  /** A verified join pass's kind (join-pass.ts in @floodgate/admission): a bypass, or the lane to wait in. */
  pass?: { kind: "bypass" } | { kind: "lane"; lane: string } | null;
}

const passArgument = (pass: JoinRoomInput["pass"]): string =>
  !pass ? "" : pass.kind === "bypass" ? "bypass" : `lane:${pass.lane}`;

export type JoinRoomResult =
  /** joined: a new ticket; existing: the user's live ticket (waiting, pre-queue or admitted), unchanged (but a
   * bypass's waiting ticket admitted now). */
  | { result: "joined" | "existing"; ticketId: string; ticket: TicketReading }
  /** The room has no config: nothing written. */
  | { result: "unknown_room" }
  /** closed: the room's endsAt has come; rejecting: its method is reject. Nothing written. */
  | { result: "closed" }
  | { result: "rejecting" };

type JoinRoomReply = [-1 | -2 | -3, ""] | [1 | 2, string, string, string, string, string, string, string];

/**
 * join-room-11.lua: one place per user in a waiting room. Code 1 a new ticket, 2 the user's ticket (unchanged,
 * or admitted now by a bypass), -1 no such room, -2 closed (endsAt has come), -3 rejecting (method reject).
 */
export const joinRoom = luaScript({
  file: "join-room-11.lua",
  keys: (input: JoinRoomInput) => [...queueingRoomKeys(input), input.unreservedKey, input.eventsKey],
  args: (input: JoinRoomInput) => [input.ticketId, input.userId, passArgument(input.pass)],
  decode: (reply: JoinRoomReply): JoinRoomResult => {
    const code = Number(reply[0]);
    if (code === -1) return { result: "unknown_room" };
    if (code === -2) return { result: "closed" };
    if (code === -3) return { result: "rejecting" };
    const [, ticketId, status, position, joinedAt, admittedAt, expiresAt, band] = reply as string[];
    return {
      result: code === 1 ? "joined" : "existing",
      ticketId: ticketId!,
      ticket: ticketReading(status, position, joinedAt, admittedAt, expiresAt, band),
    };
  },
});
