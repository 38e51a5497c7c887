// The admission block that every guarded script takes first (includes/admission-gate.lua): 3 keys and 7
// arguments, built by the intake's admission control, and what the script says back about it. Every key is in
// the user's partition slot, a guarding room's included (its queueing mirror and the user's passes). The client
// address's bucket is not in it (its own slot): the intake takes it beside the script (take-token-1.lua).
import type { AdmissionGate } from "@floodgate/redis-scripts";
import type { QueueKeys } from "./queue-keys.ts";

/** The gate's 3 keys and 7 arguments, as its wrapper takes them (redis-scripts includes/admission-gate.ts). */
export type AdmissionCheck = AdmissionGate;

/**
 * What the waiting room says when a request holds no admission while it queues. (A token of another user is
 * the intake's to refuse, from its claims: to the script it is a ticket the user has no pass for.)
 * `not_handed_out`: the token is not the one handed out for its ticket (its digest differs from the pass's).
 * `unsigned`: the ticket's pass has no digest (an intake of the previous release wrote it) and the intake did
 * not verify the token's signature: it verifies it and sends the request again.
 * `used`: a one-shot room's token that another request was accepted with.
 */
export type WaitingRoomRefusalReason =
  | "no_token"
  | "unknown_ticket"
  | "not_handed_out"
  | "unsigned"
  | "revoked"
  | "expired"
  | "used";

export type AdmissionRefusal =
  | { result: "rate_limited"; scope: "user"; retryAfterMs: number }
  | { result: "waiting_room_required"; reason: WaitingRoomRefusalReason };

/**
 * The buckets after an accepted request took its tokens; null where the scope has no limit. The script fills
 * `user`; the intake fills `ip` from the address's side command.
 */
export interface AdmissionInfo {
  user: { remaining: number; resetMs: number } | null;
  ip: { remaining: number; resetMs: number } | null;
}

const RATE_LIMITED = -90;
const WAITING_ROOM_REQUIRED = -91;

/**
 * No limits, no room: for callers outside the HTTP edge (tests, tools). The gate never touches its keys then;
 * they name the user's partition stream only so that every key of the call stays in the user's slot.
 */
export function unlimitedAdmission(keys: QueueKeys, userId: string): AdmissionCheck {
  const placeholder = keys.stream(keys.partitionForUser(userId));
  return { keys: [placeholder, placeholder, placeholder], args: [0, 0, "0", userId, "", "", "0"] };
}

/** No limits, no room, keys in the given partition's slot (for requests with no user: refunds). */
export function unlimitedAdmissionIn(keys: QueueKeys, partition: number): AdmissionCheck {
  const placeholder = keys.stream(partition);
  return { keys: [placeholder, placeholder, placeholder], args: [0, 0, "0", "", "", "", "0"] };
}

/** The refusal a script answered with, or null when the code is the script's own. */
export function admissionRefusal(code: number, value: string): AdmissionRefusal | null {
  if (code === RATE_LIMITED) {
    // "user,<retryAfterMs>": the gate holds no other bucket.
    return { result: "rate_limited", scope: "user", retryAfterMs: Number(value.split(",")[1]) };
  }
  if (code === WAITING_ROOM_REQUIRED) {
    return { result: "waiting_room_required", reason: value as WaitingRoomRefusalReason };
  }
  return null;
}

export function admissionInfo(encoded: string | undefined): AdmissionInfo | null {
  if (!encoded) return null;
  // "<userRemaining>,<userResetMs>", read in place: every accepted request has one (issue 30).
  const comma = encoded.indexOf(",");
  const userRemaining = Number(comma === -1 ? encoded : encoded.slice(0, comma));
  const userReset = comma === -1 ? 0 : Number(encoded.slice(comma + 1));
  return { user: userRemaining < 0 ? null : { remaining: userRemaining, resetMs: userReset }, ip: null };
}
