// Tickets of a waiting room: joining (one place per user), reading (a poll is a heartbeat), revoking. Each is
// one script call in the room's slot (its wrapper in @floodgate/redis-scripts); the record format is in
// commands/includes/room-tickets.lua there. The join's limit per client address is the caller's side command
// (address-bucket.ts), sent beside the join.
import { encodeBase32, randomBase32 } from "@floodgate/domain";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import {
  joinRoom as joinRoomScript,
  type RevokedTicket,
  readTicket as readTicketScript,
  revokeTicket as revokeTicketScript,
  type TicketReading,
  type TicketStatus,
} from "@floodgate/redis-scripts";
import type { AdmissionKeys } from "./admission-keys.ts";
import type { JoinPassKind } from "./join-pass.ts";
import { roomScriptKeys } from "./room-script-keys.ts";

export { type RevokedTicket, TICKET_STATUSES, type TicketStatus } from "@floodgate/redis-scripts";

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
  /** A waiting ticket's lane (0 the default queue, i the room's i-th lane), whose share its ETA moves at. */
  band?: number;
}

export const TICKET_ID_PATTERN = /^tkt_[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * tkt_ + 26 Crockford base32 characters: 10 of time (ms), 16 of randomness (80 bits). The randomness comes from
 * the pool operation ids draw on: a randomBytes call per ticket was 6 % of a join's CPU in the intake.
 */
export function newTicketId(nowMs = Date.now()): string {
  return `tkt_${encodeBase32(nowMs, 10)}${randomBase32(16)}`;
}

function toState(roomId: string, ticketId: string, userId: string, ticket: TicketReading): TicketState {
  return { ticketId, roomId, userId, ...ticket };
}

export type JoinOutcome =
  | { result: "joined" | "existing"; ticket: TicketState }
  | { result: "unknown_room" }
  | { result: "closed" }
  | { result: "rejecting" };

export async function joinRoom(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  request: { roomId: string; userId: string; pass?: JoinPassKind | null },
): Promise<JoinOutcome> {
  const joined = await joinRoomScript.run(redis, {
    ...roomScriptKeys(keys.room(request.roomId)),
    ticketId: newTicketId(),
    userId: request.userId,
    pass: request.pass ?? null,
  });
  if (joined.result === "unknown_room" || joined.result === "closed" || joined.result === "rejecting") {
    return { result: joined.result };
  }
  return {
    result: joined.result,
    ticket: toState(request.roomId, joined.ticketId, request.userId, joined.ticket),
  };
}

export async function readTicket(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  roomId: string,
  ticketId: string,
): Promise<TicketState | null> {
  const read = await readTicketScript.run(redis, { ...roomScriptKeys(keys.room(roomId)), ticketId });
  if (!read) return null;
  const { userId, ...ticket } = read;
  return toState(roomId, ticketId, userId, ticket);
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
  return revokeTicketScript.run(redis, {
    ...roomScriptKeys(keys.room(roomId)),
    ticketId,
    eventChannel: keys.roomEventsChannel(),
    roomId,
  });
}
