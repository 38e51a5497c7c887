// The admission block that every guarded script takes first (includes/admission-gate.lua): 4 keys and 7
// arguments, built by the intake's admission control, and what the script says back about it.
import type { QueueKeys } from "./queue-keys.ts";

export const ADMISSION_KEY_COUNT = 4;

export interface AdmissionCheck {
  /** User bucket, IP bucket, room state, room tickets. */
  keys: readonly [string, string, string, string];
  /** User ms per token, user burst, IP ms per token, IP burst, "1"/"0" room gate, user id, ticket id. */
  args: readonly [number, number, number, number, "0" | "1", string, string];
}

/** What the waiting room says when a request holds no admission while it queues. */
export type WaitingRoomRefusalReason = "no_token" | "unknown_ticket" | "wrong_user" | "revoked" | "expired";

export type AdmissionRefusal =
  | { result: "rate_limited"; scope: "user" | "ip"; retryAfterMs: number }
  | { result: "waiting_room_required"; reason: WaitingRoomRefusalReason };

/** The buckets after an accepted request took its token; null where the scope has no limit. */
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
  return { keys: [placeholder, placeholder, placeholder, placeholder], args: [0, 0, 0, 0, "0", userId, ""] };
}

/** No limits, no room, keys in the given partition's slot (for requests with no user: refunds). */
export function unlimitedAdmissionIn(keys: QueueKeys, partition: number): AdmissionCheck {
  const placeholder = keys.stream(partition);
  return { keys: [placeholder, placeholder, placeholder, placeholder], args: [0, 0, 0, 0, "0", "", ""] };
}

/** The refusal a script answered with, or null when the code is the script's own. */
export function admissionRefusal(code: number, value: string): AdmissionRefusal | null {
  if (code === RATE_LIMITED) {
    const [scope, retryAfterMs] = value.split(",");
    return {
      result: "rate_limited",
      scope: scope === "ip" ? "ip" : "user",
      retryAfterMs: Number(retryAfterMs),
    };
  }
  if (code === WAITING_ROOM_REQUIRED) {
    return { result: "waiting_room_required", reason: value as WaitingRoomRefusalReason };
  }
  return null;
}

export function admissionInfo(encoded: string | undefined): AdmissionInfo | null {
  if (!encoded) return null;
  const [userRemaining, userReset, ipRemaining, ipReset] = encoded.split(",").map(Number) as number[];
  const bucket = (remaining = -1, resetMs = 0) => (remaining < 0 ? null : { remaining, resetMs });
  return { user: bucket(userRemaining, userReset), ip: bucket(ipRemaining, ipReset) };
}
