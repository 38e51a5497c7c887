import { luaScript } from "../lua-script.ts";
import { type RoomKeys, type TicketReading, ticketReading } from "./includes/room-tickets.ts";

export interface ReadTicketInput extends Pick<RoomKeys, "ticketsKey" | "queueKey" | "earlyKey" | "seenKey"> {
  ticketId: string;
}

export interface ReadTicketResult extends TicketReading {
  userId: string;
}

type ReadTicketReply = [] | [string, string, string, string, string, string, string];

/**
 * read-ticket-4.lua: a ticket's state for a poll, also its heartbeat (a waiting or pre-queue ticket keeps its
 * place). null when the room has no such ticket.
 */
export const readTicket = luaScript({
  file: "read-ticket-4.lua",
  keys: (input: ReadTicketInput) => [input.ticketsKey, input.queueKey, input.earlyKey, input.seenKey],
  args: (input: ReadTicketInput) => [input.ticketId],
  decode: (reply: ReadTicketReply): ReadTicketResult | null => {
    if (reply.length === 0) return null;
    const [status, userId, position, joinedAt, admittedAt, expiresAt, band] = reply;
    return {
      userId: userId ?? "",
      ...ticketReading(status, position, joinedAt, admittedAt, expiresAt, band),
    };
  },
});
