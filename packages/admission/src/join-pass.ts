// Join passes: what POST /v1/rooms/:roomId/passes mints for the shop to hand one shopper, and what that shopper's
// join carries (`pass`): a bypass (admitted at once, within the room's caps) or a lane to wait in
// (join-room-11.lua). Signed with the admission signing keys (ES256, or HS256 when selected) under a JWT `typ` of
// their own, so a join pass is never read as an admission token, nor an admission token as a join pass. Bound to
// one user and one room, and short-lived: it is checked by the intake at the join, where nothing else is needed
// (no Redis call, so the join stays one round trip). Not to be confused with room-passes.ts, a user's admissions
// kept in the user's slot for the guarded routes.
import type { AdmissionTokens } from "./admission-token.ts";

export const JOIN_PASS_TYP = "floodgate-join-pass+jwt";
const ISSUER = "floodgate";
/** A pass lives long enough to reach the shopper's page and its join, not to be collected and traded. */
export const DEFAULT_JOIN_PASS_SECONDS = 300;
export const MIN_JOIN_PASS_SECONDS = 10;
export const MAX_JOIN_PASS_SECONDS = 86_400;

export type JoinPassKind = { kind: "bypass" } | { kind: "lane"; lane: string };

export interface JoinPassClaims {
  roomId: string;
  userId: string;
  pass: JoinPassKind;
  /** Epoch ms (whole seconds: the token's exp). */
  expiresAt: number;
}

export type JoinPassVerdict =
  | { ok: true; claims: JoinPassClaims }
  /** invalid: not a join pass of ours (malformed, forged, tampered) or expired; mismatch: another user's or room's. */
  | { ok: false; reason: "invalid" | "expired" | "mismatch"; detail: string };

/** The `kind` field of the route: "bypass" or a lane's name. */
export const joinPassKind = (kind: string): JoinPassKind =>
  kind === "bypass" ? { kind: "bypass" } : { kind: "lane", lane: kind };

export function mintJoinPass(
  tokens: AdmissionTokens,
  request: { roomId: string; userId: string; pass: JoinPassKind; expiresInSeconds: number },
  nowMs = Date.now(),
): { token: string; claims: JoinPassClaims } {
  const exp = Math.floor(nowMs / 1000) + request.expiresInSeconds;
  const kind = request.pass.kind === "bypass" ? "bypass" : request.pass.lane;
  const token = tokens.signTyped(JOIN_PASS_TYP, {
    iss: ISSUER,
    sub: request.userId,
    room: request.roomId,
    kind,
    iat: Math.floor(nowMs / 1000),
    exp,
  });
  const claims = {
    roomId: request.roomId,
    userId: request.userId,
    pass: request.pass,
    expiresAt: exp * 1000,
  };
  return { token, claims };
}

/** The pass's claims when it is ours, current, and for this user in this room. */
export function verifyJoinPass(
  tokens: AdmissionTokens,
  token: string,
  expected: { roomId: string; userId: string },
  nowMs = Date.now(),
): JoinPassVerdict {
  const verdict = tokens.verifyTyped(JOIN_PASS_TYP, token);
  if (!verdict.ok)
    return { ok: false, reason: "invalid", detail: `the pass is ${verdict.reason.replace("_", " ")}` };
  const { iss, sub, room, kind, exp } = verdict.payload;
  if (
    iss !== ISSUER ||
    typeof sub !== "string" ||
    typeof room !== "string" ||
    typeof kind !== "string" ||
    typeof exp !== "number"
  ) {
    return { ok: false, reason: "invalid", detail: "the pass is malformed" };
  }
  if (exp * 1000 <= nowMs) return { ok: false, reason: "expired", detail: "the pass has expired" };
  if (room !== expected.roomId) {
    return { ok: false, reason: "mismatch", detail: `the pass is for another room, not ${expected.roomId}` };
  }
  if (sub !== expected.userId) {
    return { ok: false, reason: "mismatch", detail: `the pass is for another user, not ${expected.userId}` };
  }
  return { ok: true, claims: { roomId: room, userId: sub, pass: joinPassKind(kind), expiresAt: exp * 1000 } };
}
