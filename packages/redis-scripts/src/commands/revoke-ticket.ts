import { luaScript } from "../lua-script.ts";
import { optionalNumber, type RoomKeys, type TicketStatus } from "./includes/room-tickets.ts";

export interface RevokeTicketInput
  extends Pick<
    RoomKeys,
    "ticketsKey" | "queueKey" | "earlyKey" | "seenKey" | "sessionsKey" | "endedKey" | "unreservedKey"
  > {
  ticketId: string;
  /** Where the revocation is published, for the intake holding the ticket's WebSocket. */
  eventChannel: string;
  roomId: string;
}

export interface RevokedTicket {
  /** The ticket's status before the revoke ("revoked" again on a retry). */
  before: TicketStatus;
  userId: string;
  /** When its admission would have ended; null for a ticket never admitted. */
  expiresAt: number | null;
}

type RevokeTicketReply = [] | [string, string, string];

/**
 * revoke-ticket-7.lua: revokes a ticket in the room's slot (a waiting one loses its place, an admitted one its
 * session) and publishes it;
 * null when the room has no such ticket. The caller then revokes the user's pass (revoke-pass-1.lua).
 */
export const revokeTicket = luaScript({
  file: "revoke-ticket-7.lua",
  keys: (input: RevokeTicketInput) => [
    input.ticketsKey,
    input.queueKey,
    input.earlyKey,
    input.seenKey,
    input.sessionsKey,
    input.endedKey,
    input.unreservedKey,
  ],
  args: (input: RevokeTicketInput) => [input.ticketId, input.eventChannel, input.roomId],
  decode: (reply: RevokeTicketReply): RevokedTicket | null => {
    if (reply.length === 0) return null;
    const [before, userId, expiresAt] = reply;
    return { before: before as TicketStatus, userId, expiresAt: optionalNumber(expiresAt) };
  },
});
