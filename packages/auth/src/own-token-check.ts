// Floodgate's own customer tokens, checked with node:crypto directly: one HMAC-SHA256 and a constant-time
// comparison, synchronous. jose's general path goes through WebCrypto and costs several times as much CPU per
// token, which a flash sale pays for every shopper's first request. The claims are read first only to learn
// the issuer (another issuer's token goes to jose, with the key configured for it); for ours the header must
// say HS256 and nothing more (so `alg: none` or any other algorithm is refused), then the signature, audience,
// expiry and subject are checked. The signature is read in its one canonical spelling (canonical-base64url.ts),
// so a token cannot be respelled past the verified-token cache.
import { createHmac, type KeyObject, timingSafeEqual } from "node:crypto";
import { decodeCanonicalBase64url } from "@floodgate/domain";
import { CUSTOMER_TOKEN_AUDIENCE, CUSTOMER_TOKEN_ISSUER } from "./customer-token-signer.ts";

const EXPECTED_HEADER = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");

export type OwnTokenResult =
  | { ok: true; userId: string; expiresAt: number }
  | { ok: false; reason: "invalid" | "expired"; message: string }
  /** Not one of ours: the issuer it names (undefined when it names none). */
  | { ok: false; reason: "foreign"; issuer: unknown };

const refuse = (message: string): OwnTokenResult => ({ ok: false, reason: "invalid", message });

interface Claims {
  iss?: unknown;
  aud?: unknown;
  sub?: unknown;
  exp?: unknown;
}

/** `key`: a KeyObject made once (createSecretKey); an HMAC over a raw Buffer key costs about 5x the CPU. */
export function checkOwnToken(token: string, key: KeyObject, nowMs: number): OwnTokenResult {
  const first = token.indexOf(".");
  const second = token.indexOf(".", first + 1);
  if (first < 0 || second < 0 || token.indexOf(".", second + 1) >= 0) {
    return refuse("the bearer is neither a server key nor a JWT");
  }
  let claims: Claims;
  try {
    claims = JSON.parse(Buffer.from(token.slice(first + 1, second), "base64url").toString("utf8"));
  } catch {
    return refuse("the bearer is neither a server key nor a JWT");
  }
  if (claims === null || typeof claims !== "object") return refuse("the token's claims are not an object");
  if (claims.iss !== CUSTOMER_TOKEN_ISSUER) return { ok: false, reason: "foreign", issuer: claims.iss };
  const header = token.slice(0, first);
  if (header !== EXPECTED_HEADER && !isPlainHs256Header(header)) {
    return refuse("the token's header is not HS256 (the only algorithm of Floodgate's own tokens)");
  }
  const expected = createHmac("sha256", key).update(token.slice(0, second)).digest();
  const signature = decodeCanonicalBase64url(token.slice(second + 1), expected.length);
  if (signature === undefined || !timingSafeEqual(signature, expected)) {
    return refuse("the token's signature does not verify");
  }
  const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audience.includes(CUSTOMER_TOKEN_AUDIENCE)) return refuse("the token is for another audience");
  if (typeof claims.exp !== "number" || !Number.isFinite(claims.exp))
    return refuse("the token has no expiry");
  if (typeof claims.sub !== "string") return refuse("the token has no subject");
  const expiresAt = claims.exp * 1000;
  if (expiresAt <= nowMs) return { ok: false, reason: "expired", message: "the token has expired" };
  return { ok: true, userId: claims.sub, expiresAt };
}

/** {"alg":"HS256"} in any spelling, with nothing that changes how it is verified (`crit`, `b64`). */
function isPlainHs256Header(encoded: string): boolean {
  try {
    const header = JSON.parse(Buffer.from(encoded, "base64url").toString("utf8"));
    return (
      header !== null &&
      typeof header === "object" &&
      header.alg === "HS256" &&
      (header.typ === undefined || header.typ === "JWT") &&
      header.crit === undefined &&
      header.b64 === undefined
    );
  } catch {
    return false;
  }
}
