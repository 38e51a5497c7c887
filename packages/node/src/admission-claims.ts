// Reading an admission token as a Floodgate intake signs it (packages/admission's admission-token.ts and
// es256-admission-tokens.ts): a compact JWS with the header {alg: "ES256", typ: "JWT", kid} and the claims
// {iss: "floodgate", sub: user, room, tkt: ticket, iat, exp}. The algorithm is never taken on the token's word:
// only ES256 is verified, with a key of the JWKS, and the signature is read in its one canonical spelling
// (64 bytes as base64url without padding), as the intake reads it.
import { verify } from "node:crypto";
import { AdmissionVerificationError } from "./admission-verification-error.ts";
import type { VerificationKey } from "./remote-jwks.ts";

/** What an admission says, times in epoch ms (the token's NumericDates are whole seconds). */
export interface AdmissionClaims {
  roomId: string;
  ticketId: string;
  userId: string;
  admittedAt: number;
  expiresAt: number;
}

export interface TokenParts {
  kid: string;
  signingInput: string;
  signature: Buffer;
  payload: string;
}

const ES256_SIGNATURE_BYTES = 64; // r and s, 32 bytes each (IEEE P1363, as JWS spells ECDSA)

const malformed = (why: string) => new AdmissionVerificationError("malformed", `admission token: ${why}`);

/** The token split and its header checked; throws malformed or unsupported_algorithm. */
export function splitToken(token: string): TokenParts {
  const parts = token.split(".");
  if (parts.length !== 3) throw malformed("not a compact JWS");
  const header = parseJson(parts[0]!) as { alg?: unknown; kid?: unknown; crit?: unknown } | undefined;
  if (header === undefined || typeof header !== "object" || header === null)
    throw malformed("unreadable header");
  if (header.alg !== "ES256") {
    throw new AdmissionVerificationError(
      "unsupported_algorithm",
      `admission token: alg ${String(header.alg)} is not verified here (ES256 only)`,
    );
  }
  // An extension we would have to understand (RFC 7515 4.1.11): the intake never sets one.
  if (header.crit !== undefined) throw malformed("crit header");
  if (typeof header.kid !== "string") throw malformed("no kid");
  const signature = decodeCanonicalBase64url(parts[2]!, ES256_SIGNATURE_BYTES);
  if (signature === undefined)
    throw new AdmissionVerificationError("bad_signature", "admission token: signature not canonical");
  return { kid: header.kid, signingInput: `${parts[0]}.${parts[1]}`, signature, payload: parts[1]! };
}

export function checkSignature(parts: TokenParts, key: VerificationKey): void {
  const input = Buffer.from(parts.signingInput);
  if (!verify("sha256", input, { key: key.key, dsaEncoding: "ieee-p1363" }, parts.signature)) {
    throw new AdmissionVerificationError("bad_signature", "admission token: signature does not verify");
  }
}

/** The claims of a verified payload; throws when they are not the intake's. Times are checked by the caller. */
export function readClaims(payloadPart: string, issuer: string): AdmissionClaims & { notBefore?: number } {
  const payload = parseJson(payloadPart) as Record<string, unknown> | undefined;
  if (payload === undefined || typeof payload !== "object" || payload === null)
    throw malformed("unreadable claims");
  const { iss, sub, room, tkt, iat, exp, nbf } = payload;
  if (iss !== issuer) {
    throw new AdmissionVerificationError("wrong_issuer", `admission token: issuer ${String(iss)}`);
  }
  if (
    typeof sub !== "string" ||
    typeof room !== "string" ||
    typeof tkt !== "string" ||
    typeof iat !== "number" ||
    typeof exp !== "number" ||
    (nbf !== undefined && typeof nbf !== "number")
  ) {
    throw malformed("claims missing or mistyped");
  }
  return {
    roomId: room,
    ticketId: tkt,
    userId: sub,
    admittedAt: iat * 1000,
    expiresAt: exp * 1000,
    ...(typeof nbf === "number" ? { notBefore: nbf * 1000 } : {}),
  };
}

function parseJson(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
}

/** The bytes, or undefined unless `text` is the canonical base64url (no padding, no stray bits) of that many. */
function decodeCanonicalBase64url(text: string, byteLength: number): Buffer | undefined {
  if (text.length !== Math.ceil((byteLength * 4) / 3)) return undefined;
  const bytes = Buffer.from(text, "base64url");
  if (bytes.length !== byteLength || bytes.toString("base64url") !== text) return undefined;
  return bytes;
}
