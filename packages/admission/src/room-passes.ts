// Room passes: a user's admissions to a room, kept in the user's partition slot, where the guarded routes'
// scripts check them (includes/admission-gate.lua). The room's tickets stay in the room's slot and decide; a
// pass is their copy, written before a token can be used and revoked after the ticket is:
//   - grantPass before any admission token for the ticket leaves an intake (join, poll, socket push);
//   - revokePass after revoke-ticket (the admin's DELETE), also when no pass was granted yet.
// Session ends need no write: the pass carries the admission's end.
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { grantPass as grantPassScript, revokePass as revokePassScript } from "@floodgate/redis-scripts";
import type { AdmissionKeys } from "./admission-keys.ts";
import { ENDED_TICKET_RETENTION_MS } from "./room-tick.ts";

export interface PassTicket {
  roomId: string;
  ticketId: string;
  userId: string;
  expiresAt: number;
}

/** True when the pass holds the admission; false when the ticket was revoked first (hand out no token). */
export async function grantPass(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  ticket: PassTicket,
): Promise<boolean> {
  const { granted } = await grantPassScript.run(redis, {
    passesKey: keys.roomPasses(ticket.roomId, ticket.userId),
    ticketId: ticket.ticketId,
    expiresAt: ticket.expiresAt,
    endedRetentionMs: ENDED_TICKET_RETENTION_MS,
  });
  return granted;
}

export async function revokePass(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  ticket: { roomId: string; ticketId: string; userId: string; expiresAt: number | null },
): Promise<void> {
  await revokePassScript.run(redis, {
    passesKey: keys.roomPasses(ticket.roomId, ticket.userId),
    ticketId: ticket.ticketId,
    expiresAt: ticket.expiresAt,
    endedRetentionMs: ENDED_TICKET_RETENTION_MS,
  });
}

export type PassStanding = "admitted" | "revoked" | "expired" | "unknown_ticket";

/**
 * Where a ticket's admission stands in the user's passes, as the guarded routes' gate reads it
 * (includes/admission-gate.lua): one HGET in the user's slot. For a shop's server asking online
 * (POST /v1/rooms/:roomId/admissions/verify).
 */
export async function readPassStanding(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  ticket: { roomId: string; ticketId: string; userId: string },
  nowMs = Date.now(),
): Promise<PassStanding> {
  const pass = await redis.hget(keys.roomPasses(ticket.roomId, ticket.userId), ticket.ticketId);
  if (pass === null) return "unknown_ticket";
  const [status, expiresAt] = pass.split("|");
  if (status === "revoked") return "revoked";
  return Number(expiresAt) > nowMs ? "admitted" : "expired";
}
