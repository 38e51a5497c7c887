// Tickets of a waiting room: joining (one place per user), reading (a poll is a heartbeat), revoking. Each is
// one script call in the room's slot; the record format is in lua/includes/room-tickets.lua. The join's limit
// per client address is the caller's side command (address-bucket.ts), sent beside the join.
import { randomBytes } from "node:crypto";
import type { ScriptedRedis } from "@floodgate/queue";
import type { AdmissionKeys } from "./admission-keys.ts";

export const TICKET_STATUSES = ["early", "waiting", "admitted", "expired", "abandoned", "revoked"] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export interface TicketState {
  ticketId: string;
  roomId: string;
  userId: string;
  status: TicketStatus;
  /** 1-based place in the queue (for a pre-queue ticket: the size of the pre-queue); null unless waiting. */
  position: number | null;
  joinedAt: number | null;
  admittedAt: number | null;
  expiresAt: number | null;
}

export const TICKET_ID_PATTERN = /^tkt_[0-9A-HJKMNP-TV-Z]{26}$/;
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** tkt_ + 26 Crockford base32 characters: 10 of time (ms), 16 of randomness (80 bits). */
export function newTicketId(nowMs = Date.now()): string {
  let time = "";
  for (let n = nowMs, i = 0; i < 10; i++, n = Math.floor(n / 32)) time = CROCKFORD[n % 32] + time;
  const random = randomBytes(16);
  let tail = "";
  for (let i = 0; i < 16; i++) tail += CROCKFORD[random[i]! % 32];
  return `tkt_${time}${tail}`;
}

const number = (value: string | undefined) => (value ? Number(value) : null);

function toState(roomId: string, ticketId: string, fields: string[]): TicketState {
  const [status, userId, position, joinedAt, admittedAt, expiresAt] = fields;
  return {
    ticketId,
    roomId,
    userId: userId ?? "",
    status: status as TicketStatus,
    position: number(position),
    joinedAt: number(joinedAt),
    admittedAt: number(admittedAt),
    expiresAt: number(expiresAt),
  };
}

export type JoinOutcome = { result: "joined" | "existing"; ticket: TicketState } | { result: "unknown_room" };

export async function joinRoom(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  request: { roomId: string; userId: string },
): Promise<JoinOutcome> {
  const room = keys.room(request.roomId);
  const reply = await redis.joinRoom(
    room.config,
    room.state,
    room.queue,
    room.early,
    room.tickets,
    room.users,
    room.seen,
    room.sessions,
    room.admits,
    newTicketId(),
    request.userId,
    Math.random(),
  );
  const code = Number(reply[0]);
  if (code === -1) return { result: "unknown_room" };
  const [, ticketId, status, position, joinedAt, admittedAt, expiresAt] = reply as string[];
  return {
    result: code === 1 ? "joined" : "existing",
    ticket: toState(request.roomId, ticketId!, [
      status!,
      request.userId,
      position!,
      joinedAt!,
      admittedAt!,
      expiresAt!,
    ]),
  };
}

export async function readTicket(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  roomId: string,
  ticketId: string,
): Promise<TicketState | null> {
  const room = keys.room(roomId);
  const fields = await redis.readTicket(room.tickets, room.queue, room.early, room.seen, ticketId);
  return fields.length === 0 ? null : toState(roomId, ticketId, fields);
}

export interface RevokedTicket {
  /** The ticket's status before the revoke ("revoked" again on a retry). */
  before: TicketStatus;
  userId: string;
  /** When its admission would have ended; null for a ticket never admitted. */
  expiresAt: number | null;
}

/**
 * Revokes the ticket in the room's slot; null when the room has no such ticket. The caller then revokes the
 * user's pass (room-passes.ts), which is what the guarded routes read.
 */
export async function revokeTicket(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  roomId: string,
  ticketId: string,
): Promise<RevokedTicket | null> {
  const room = keys.room(roomId);
  const reply = await redis.revokeTicket(
    room.tickets,
    room.queue,
    room.early,
    room.seen,
    room.sessions,
    room.ended,
    ticketId,
    keys.roomEventsChannel(),
    roomId,
  );
  if (reply.length === 0) return null;
  const [before, userId, expiresAt] = reply;
  return { before: before as TicketStatus, userId, expiresAt: number(expiresAt) };
}
