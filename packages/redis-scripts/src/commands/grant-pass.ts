import { luaScript } from "../lua-script.ts";

export interface GrantPassInput {
  /** The user's passes for the room, {p}:pass:<roomId>:<userId> (includes/room-passes.lua), in the user's slot. */
  passesKey: string;
  ticketId: string;
  /** The admission's end, epoch ms (the ticket's expiresAt). */
  expiresAt: number;
  /** How long an ended ticket stays readable, ms (the room's retention of ended tickets). */
  endedRetentionMs: number;
  /** The admission token the caller signed for the ticket: stored (and handed out) if none was before. */
  token: string;
  /** Its digest (admission-token-digest.ts in @floodgate/admission), what the gate compares. */
  tokenDigest: string;
}

export type GrantPassResult =
  /** The pass holds the admission: hand out `token`, the one the first grant stored (the same every time). */
  | { granted: true; token: string }
  /** The ticket's pass was revoked first: hand out no token. */
  | { granted: false };

/**
 * grant-pass-1.lua: a room pass in the user's slot, granted before any admission token for the ticket leaves,
 * holding the digest of the one token every handout of the admission gives.
 */
export const grantPass = luaScript({
  file: "grant-pass-1.lua",
  keys: (input: GrantPassInput) => [input.passesKey],
  args: (input: GrantPassInput) => [
    input.ticketId,
    input.expiresAt,
    input.endedRetentionMs,
    input.token,
    input.tokenDigest,
  ],
  decode: ([granted, token]: [number, string]): GrantPassResult =>
    granted === 1 ? { granted: true, token } : { granted: false },
});
