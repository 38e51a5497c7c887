// Room passes: a user's admissions to a room, kept in the user's partition slot, where the guarded routes'
// scripts check them (includes/admission-gate.lua). The room's tickets stay in the room's slot and decide; a
// pass is their copy, written before a token can be used and revoked after the ticket is:
//   - grantPass before any admission token for the ticket leaves an intake (join, poll, socket push): the first
//     stores the token and its digest, and every grant answers that token, the only one the gate admits;
//   - revokePass after revoke-ticket (the admin's DELETE), also when no pass was granted yet.
// A session's expiry needs no write: the pass carries the admission's end. A session that ends on its order
// is closed by the worker's per-order call in the user's slot (includes/ended-session-pass.lua).
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { grantPass as grantPassScript, revokePass as revokePassScript } from "@floodgate/redis-scripts";
import type { AdmissionKeys } from "./admission-keys.ts";
import { ADMISSION_TOKEN_DIGEST_CHARS, admissionTokenDigest } from "./admission-token-digest.ts";
import { ENDED_TICKET_RETENTION_MS } from "./room-tick.ts";

export interface PassTicket {
  roomId: string;
  ticketId: string;
  userId: string;
  expiresAt: number;
}

/**
 * The token to hand out for the admission: `token` when this grant is the first, else the one the first grant
 * stored (every handout of one admission is the same token). Null when the ticket was revoked first (hand out
 * none).
 */
export async function grantPass(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  ticket: PassTicket,
  token: string,
): Promise<string | null> {
  const answer = await grantPassScript.run(redis, {
    passesKey: keys.roomPasses(ticket.roomId, ticket.userId),
    ticketId: ticket.ticketId,
    expiresAt: ticket.expiresAt,
    endedRetentionMs: ENDED_TICKET_RETENTION_MS,
    token,
    tokenDigest: admissionTokenDigest(token),
  });
  return answer.granted ? answer.token : null;
}

/** The pass's field holding the token handed out for a ticket: pass_token_field in includes/room-passes.lua. */
const handedOutTokenField = (ticketId: string) => `token:${ticketId}`;

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

/**
 * `not_handed_out`: the token is not the one handed out for the ticket (its digest differs from the pass's).
 * `unsigned`: the pass holds no digest (the previous release granted it) and the caller has not verified the
 * token's signature: it must, and ask again with `signatureVerified`.
 */
export type PassStanding =
  | "admitted"
  | "revoked"
  | "expired"
  | "unknown_ticket"
  | "not_handed_out"
  | "unsigned";

/**
 * Where the admission of the ticket `token` claims stands in the user's passes, as the guarded routes' gate
 * reads it (includes/admission-gate.lua): the token handed out first, then the ticket's standing; one HMGET in
 * the user's slot. For a shop's server asking online (POST /v1/rooms/:roomId/admissions/verify).
 */
export async function readPassStanding(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  ticket: { roomId: string; ticketId: string; userId: string },
  token: string,
  options: { signatureVerified: boolean; nowMs?: number },
): Promise<PassStanding> {
  const [pass, handedOut] = await redis.hmget(
    keys.roomPasses(ticket.roomId, ticket.userId),
    ticket.ticketId,
    handedOutTokenField(ticket.ticketId),
  );
  if (pass === null || pass === undefined) return "unknown_ticket";
  if (handedOut === null || handedOut === undefined) {
    if (!options.signatureVerified) return "unsigned";
  } else if (handedOut.slice(0, ADMISSION_TOKEN_DIGEST_CHARS) !== admissionTokenDigest(token)) {
    return "not_handed_out";
  }
  const [status, expiresAt] = pass.split("|");
  if (status === "revoked") return "revoked";
  // A session that ended on its order (includes/ended-session-pass.lua): over, as an expired one is.
  if (status === "ended") return "expired";
  return Number(expiresAt) > (options.nowMs ?? Date.now()) ? "admitted" : "expired";
}
