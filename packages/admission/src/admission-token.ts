// Admission tokens: compact JWTs (RFC 7519) that carry the room, the ticket, the user and the end of the
// session; revocation is checked by the gate script (the ticket's status), so a token is never trusted alone.
// Two signers: ES256 (es256-admission-tokens.ts, the default: anyone holding the JWKS verifies, only the
// intakes sign) and HS256 here (ADMISSION_TOKEN_ALG=HS256, deprecated: whoever verifies can also mint), signed by
// whichever intake process hands them out, verified by any other with the same ADMISSION_TOKEN_SECRET.
// Only one header is accepted, byte for byte: no algorithm is ever taken from the token itself ("none",
// RS/HS confusion), signatures are read in their one canonical spelling (canonical-base64url.ts) and compared in
// constant time.
// The intake's own gate reads the claims without the signature (read()): it admits only the exact token handed
// out, by its digest in the user's pass (admission-token-digest.ts), which proves as much to it as a signature
// and costs a hash. verify() is for whoever holds no pass: the previous release's passes, the shop's gate.
import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from "node:crypto";
import { decodeCanonicalBase64url, isCanonicalBase64url } from "@floodgate/domain";

const ISSUER = "floodgate";
const HEADER = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");

export interface AdmissionClaims {
  roomId: string;
  ticketId: string;
  userId: string;
  /** Epoch ms when the admission was made and when its session ends. */
  admittedAt: number;
  expiresAt: number;
}

export type TokenRejection = "malformed" | "bad_signature" | "expired";

export type TokenVerdict = { ok: true; claims: AdmissionClaims } | { ok: false; reason: TokenRejection };

/** A token of another kind signed with the same keys (join-pass.ts): its payload, once its signature holds. */
export type TypedVerdict =
  | { ok: true; payload: Record<string, unknown> }
  | { ok: false; reason: "malformed" | "bad_signature" };

/** What the intake needs of a signer, whichever the algorithm. */
export interface AdmissionTokens {
  issue(claims: AdmissionClaims): string;
  verify(token: string, nowMs?: number): TokenVerdict;
  /**
   * The claims of a token in our exact shape (a header of ours, canonical base64url, sizes bounded), its
   * signature not checked: only for a caller that then admits the token by its digest (the intake's gate).
   */
  read(token: string, nowMs?: number): TokenVerdict;
  /**
   * Signs a token of another kind under a header `typ` of its own (RFC 8725 3.11, explicit typing): verify()
   * matches the admission header byte for byte, so such a token never reads as an admission.
   */
  signTyped(typ: string, payload: Record<string, unknown>): string;
  /** The payload of a token signTyped made with this `typ`; the caller checks its claims and expiry. */
  verifyTyped(typ: string, token: string): TypedVerdict;
}

/** Longer tokens are not read (ours are about 300 characters): a bound on what a request makes us decode. */
const MAX_TOKEN_CHARS = 2048;
const MAX_PAYLOAD_CHARS = 1024;
const HS256_SIGNATURE_BYTES = 32;

/**
 * The three parts of a token shaped as ours: `signatureBytes` in canonical base64url, a bounded canonical payload.
 * The header is the caller's to match. A signature in another spelling is "bad_signature", as verify() says.
 */
export function tokenParts(token: string, signatureBytes: number): string[] | TokenRejection {
  if (token.length > MAX_TOKEN_CHARS) return "malformed";
  const parts = token.split(".");
  if (parts.length !== 3) return "malformed";
  const payload = parts[1]!;
  if (payload.length > MAX_PAYLOAD_CHARS || !isCanonicalBase64url(payload)) return "malformed";
  if (decodeCanonicalBase64url(parts[2]!, signatureBytes) === undefined) return "bad_signature";
  return parts;
}

interface Payload {
  iss: string;
  sub: string;
  room: string;
  tkt: string;
  iat: number;
  exp: number;
}

export class Hs256AdmissionTokens implements AdmissionTokens {
  // A KeyObject made once: handing createHmac the raw secret costs five times as much per token (every
  // guarded request with a token verifies one, every admission signs one).
  readonly #secret: KeyObject;

  constructor(secret: string) {
    this.#secret = createSecretKey(Buffer.from(secret, "utf8"));
  }

  #sign(input: string): Buffer {
    return createHmac("sha256", this.#secret).update(input).digest();
  }

  issue(claims: AdmissionClaims): string {
    const body = `${HEADER}.${encodeClaims(claims)}`;
    return `${body}.${this.#sign(body).toString("base64url")}`;
  }

  signTyped(typ: string, payload: Record<string, unknown>): string {
    const body = `${typedHeader({ alg: "HS256", typ })}.${encodePayload(payload)}`;
    return `${body}.${this.#sign(body).toString("base64url")}`;
  }

  verifyTyped(typ: string, token: string): TypedVerdict {
    const parts = token.split(".");
    if (parts.length !== 3 || parts[0] !== typedHeader({ alg: "HS256", typ })) {
      return { ok: false, reason: "malformed" };
    }
    const expected = this.#sign(`${parts[0]}.${parts[1]}`);
    const signature = decodeCanonicalBase64url(parts[2]!, expected.length);
    if (signature === undefined || !timingSafeEqual(signature, expected)) {
      return { ok: false, reason: "bad_signature" };
    }
    return readPayload(parts[1]!);
  }

  verify(token: string, nowMs = Date.now()): TokenVerdict {
    const parts = token.split(".");
    if (parts.length !== 3 || parts[0] !== HEADER) return { ok: false, reason: "malformed" };
    const expected = this.#sign(`${parts[0]}.${parts[1]}`);
    const signature = decodeCanonicalBase64url(parts[2]!, HS256_SIGNATURE_BYTES);
    if (signature === undefined || !timingSafeEqual(signature, expected)) {
      return { ok: false, reason: "bad_signature" };
    }
    return readClaims(parts[1]!, nowMs);
  }

  read(token: string, nowMs = Date.now()): TokenVerdict {
    const parts = tokenParts(token, HS256_SIGNATURE_BYTES);
    if (typeof parts === "string") return { ok: false, reason: parts };
    if (parts[0] !== HEADER) return { ok: false, reason: "malformed" };
    return readClaims(parts[1]!, nowMs);
  }
}

/** A JWS header part, its fields in the order given (the verifier compares the text). */
export const typedHeader = (header: Record<string, string>): string =>
  Buffer.from(JSON.stringify(header)).toString("base64url");

export const encodePayload = (payload: Record<string, unknown>): string =>
  Buffer.from(JSON.stringify(payload)).toString("base64url");

/** A signed payload part as an object, or malformed. */
export function readPayload(part: string): TypedVerdict {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    return { ok: false, reason: "malformed" };
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    return { ok: false, reason: "malformed" };
  }
  return { ok: true, payload: payload as Record<string, unknown> };
}

/** The payload part of a token carrying these claims (base64url of its JSON). */
export function encodeClaims(claims: AdmissionClaims): string {
  const payload: Payload = {
    iss: ISSUER,
    sub: claims.userId,
    room: claims.roomId,
    tkt: claims.ticketId,
    iat: Math.floor(claims.admittedAt / 1000),
    // NumericDate is whole seconds: rounding down ends the token no later than the session.
    exp: Math.floor(claims.expiresAt / 1000),
  };
  return Buffer.from(JSON.stringify(payload)).toString("base64url");
}

/** The claims of a payload part (its signature verified, or its token's digest to be checked), or why they do not count. */
export function readClaims(part: string, nowMs: number): TokenVerdict {
  let payload: Partial<Payload>;
  try {
    payload = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    return { ok: false, reason: "malformed" };
  }
  const { iss, sub, room, tkt, iat, exp } = payload;
  if (
    iss !== ISSUER ||
    typeof sub !== "string" ||
    typeof room !== "string" ||
    typeof tkt !== "string" ||
    typeof iat !== "number" ||
    typeof exp !== "number"
  ) {
    return { ok: false, reason: "malformed" };
  }
  if (exp * 1000 <= nowMs) return { ok: false, reason: "expired" };
  return {
    ok: true,
    claims: { roomId: room, ticketId: tkt, userId: sub, admittedAt: iat * 1000, expiresAt: exp * 1000 },
  };
}
