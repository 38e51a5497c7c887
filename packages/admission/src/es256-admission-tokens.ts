// ES256 admission tokens (ECDSA P-256 with SHA-256, RFC 7518 3.4): the intakes sign with a private key they all
// share (the global database's admission_signing_keys, or ADMISSION_SIGNING_KEYS), and anyone holding the
// public keys (GET /.well-known/jwks.json) verifies, without being able to mint. Each key's header is made once
// and matched byte for byte, so the algorithm and the key come from this process's list, never from the token.
// A signature check costs about ten HMACs, so a verified token is remembered by its whole text (as customer
// tokens are, verified-token-cache.ts): a shopper's requests after the first cost a map lookup. (An ECDSA
// signature has a second valid spelling, (r, n - s): only the holder of a valid token can make it, and it costs
// one more signature check, as a cache miss, and verifies to the same claims.)
// The intake's gate does not verify at all (read(): the claims of a token of our shape, admitted by its digest in
// the user's pass, admission-token.ts); the remembered tokens spare it the parse of a repeated one.
import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject, verify } from "node:crypto";
import { decodeCanonicalBase64url } from "@floodgate/domain";
import {
  type AdmissionClaims,
  type AdmissionTokens,
  encodeClaims,
  encodePayload,
  readClaims,
  readPayload,
  type TokenVerdict,
  type TypedVerdict,
  tokenParts,
  typedHeader,
} from "./admission-token.ts";
import { signEs256 } from "./ecdsa-signature.ts";

/** A private signing key as stored: a JWK with `d`, and from when (epoch ms) it signs. */
export interface AdmissionSigningKey {
  kid: string;
  privateJwk: JsonWebKey;
  signsFrom: number;
}

/** What GET /.well-known/jwks.json publishes of a key: its public part only. */
export interface PublicAdmissionJwk {
  kty: "EC";
  crv: "P-256";
  x: string;
  y: string;
  kid: string;
  alg: "ES256";
  use: "sig";
}

/** Tokens already verified, by their whole text (VerifiedTokenCache<AdmissionClaims> in the intake). */
export interface VerifiedAdmissionCache {
  get(token: string): AdmissionClaims | undefined;
  set(token: string, claims: AdmissionClaims): void;
}

interface LoadedKey {
  kid: string;
  header: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: PublicAdmissionJwk;
  signsFrom: number;
}

const SIGNATURE_BYTES = 64; // r and s, 32 bytes each (IEEE P1363, as JWS spells ECDSA)

export class Es256AdmissionTokens implements AdmissionTokens {
  #byHeader = new Map<string, LoadedKey>();
  /** Newest signsFrom first; on a tie the earlier in the list given. */
  #bySigningOrder: LoadedKey[] = [];
  readonly #cache: VerifiedAdmissionCache | null;
  readonly #onUnknownKey: (kid: string) => void;

  constructor(options: {
    keys: AdmissionSigningKey[];
    cache?: VerifiedAdmissionCache | null;
    /** Told when a token names a key this process does not hold (perhaps a rotation it has not read yet). */
    onUnknownKey?: (kid: string) => void;
  }) {
    this.#cache = options.cache ?? null;
    this.#onUnknownKey = options.onUnknownKey ?? (() => {});
    this.setKeys(options.keys);
  }

  /** Replaces the keys (a reload); throws, keeping the old ones, when one is not a P-256 private JWK. */
  setKeys(keys: AdmissionSigningKey[]): void {
    const loaded = keys.map(loadKey);
    this.#byHeader = new Map(loaded.map((key) => [key.header, key]));
    this.#bySigningOrder = loaded
      .map((key, index) => ({ key, index }))
      .sort((a, b) => b.key.signsFrom - a.key.signsFrom || a.index - b.index)
      .map(({ key }) => key);
  }

  /** Every key this process verifies with, public parts only. */
  get publicKeys(): PublicAdmissionJwk[] {
    return [...this.#byHeader.values()].map((key) => key.publicJwk);
  }

  /** The kid new tokens carry now, or null while no key is loaded. */
  signingKid(nowMs = Date.now()): string | null {
    return this.#signingKey(nowMs)?.kid ?? null;
  }

  #signingKey(nowMs: number): LoadedKey | undefined {
    // The newest key already signing; while every key is still ahead (only just rotated in), the oldest.
    return this.#bySigningOrder.find((key) => key.signsFrom <= nowMs) ?? this.#bySigningOrder.at(-1);
  }

  issue(claims: AdmissionClaims, nowMs = Date.now()): string {
    const key = this.#signingKey(nowMs);
    if (key === undefined) throw new Error("no admission signing key is loaded yet");
    const body = `${key.header}.${encodeClaims(claims)}`;
    const signature = signEs256(body, key.privateKey);
    const token = `${body}.${signature.toString("base64url")}`;
    // Signed here, so valid here: the shopper's first guarded request, when it reaches this process, costs a
    // lookup too. Remembered as verify() would read it back (NumericDates are whole seconds).
    this.#cache?.set(token, {
      ...claims,
      admittedAt: Math.floor(claims.admittedAt / 1000) * 1000,
      expiresAt: Math.floor(claims.expiresAt / 1000) * 1000,
    });
    return token;
  }

  signTyped(typ: string, payload: Record<string, unknown>, nowMs = Date.now()): string {
    const key = this.#signingKey(nowMs);
    if (key === undefined) throw new Error("no admission signing key is loaded yet");
    const body = `${typedHeader({ alg: "ES256", typ, kid: key.kid })}.${encodePayload(payload)}`;
    const signature = signEs256(body, key.privateKey);
    return `${body}.${signature.toString("base64url")}`;
  }

  /** Not remembered: a typed token (a join pass) is verified once, where it is used. */
  verifyTyped(typ: string, token: string): TypedVerdict {
    const parts = token.split(".");
    if (parts.length !== 3) return { ok: false, reason: "malformed" };
    const key = this.#bySigningOrder.find(
      (candidate) => typedHeader({ alg: "ES256", typ, kid: candidate.kid }) === parts[0],
    );
    if (key === undefined) return { ok: false, reason: "malformed" };
    const signature = decodeCanonicalBase64url(parts[2]!, SIGNATURE_BYTES);
    const input = Buffer.from(`${parts[0]}.${parts[1]}`);
    if (
      signature === undefined ||
      !verify("sha256", input, { key: key.publicKey, dsaEncoding: "ieee-p1363" }, signature)
    ) {
      return { ok: false, reason: "bad_signature" };
    }
    return readPayload(parts[1]!);
  }

  verify(token: string, nowMs = Date.now()): TokenVerdict {
    const cached = this.#cache?.get(token);
    if (cached !== undefined) {
      return cached.expiresAt <= nowMs ? { ok: false, reason: "expired" } : { ok: true, claims: cached };
    }
    const parts = token.split(".");
    if (parts.length !== 3) return { ok: false, reason: "malformed" };
    const key = this.#byHeader.get(parts[0]!);
    if (key === undefined) return this.#unknownHeader(parts[0]!);
    const signature = decodeCanonicalBase64url(parts[2]!, SIGNATURE_BYTES);
    const input = Buffer.from(`${parts[0]}.${parts[1]}`);
    if (
      signature === undefined ||
      !verify("sha256", input, { key: key.publicKey, dsaEncoding: "ieee-p1363" }, signature)
    ) {
      return { ok: false, reason: "bad_signature" };
    }
    const verdict = readClaims(parts[1]!, nowMs);
    // Only a verdict that passed is remembered; its expiry is checked again on every hit.
    if (verdict.ok) this.#cache?.set(token, verdict.claims);
    return verdict;
  }

  read(token: string, nowMs = Date.now()): TokenVerdict {
    const cached = this.#cache?.get(token);
    if (cached !== undefined) {
      return cached.expiresAt <= nowMs ? { ok: false, reason: "expired" } : { ok: true, claims: cached };
    }
    const parts = tokenParts(token, SIGNATURE_BYTES);
    if (typeof parts === "string") return { ok: false, reason: parts };
    if (!this.#byHeader.has(parts[0]!)) return this.#unknownHeader(parts[0]!);
    // Not remembered: only verified and issued tokens are, so a stranger's made-up tokens cannot evict them.
    return readClaims(parts[1]!, nowMs);
  }

  /** A header that is none of ours: a key we do not hold (bad_signature, and said) or no ES256 header at all. */
  #unknownHeader(part: string): TokenVerdict {
    let header: unknown;
    try {
      header = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
    } catch {
      return { ok: false, reason: "malformed" };
    }
    const { alg, kid, typ } = (header ?? {}) as { alg?: unknown; kid?: unknown; typ?: unknown };
    // Another kind of token (a join pass, its own typ) is no admission, whatever key signed it: no reload.
    if (alg !== "ES256" || typeof kid !== "string" || typ !== "JWT")
      return { ok: false, reason: "malformed" };
    this.#onUnknownKey(kid);
    return { ok: false, reason: "bad_signature" };
  }
}

function loadKey(key: AdmissionSigningKey): LoadedKey {
  const jwk = key.privateJwk;
  if (jwk.kty !== "EC" || jwk.crv !== "P-256" || typeof jwk.d !== "string") {
    throw new Error(`admission signing key ${key.kid} is not an EC P-256 private JWK`);
  }
  const privateKey = createPrivateKey({ key: jwk, format: "jwk" });
  const publicKey = createPublicKey(privateKey);
  const { x, y } = publicKey.export({ format: "jwk" });
  const header = Buffer.from(JSON.stringify({ alg: "ES256", typ: "JWT", kid: key.kid })).toString(
    "base64url",
  );
  return {
    kid: key.kid,
    header,
    privateKey,
    publicKey,
    publicJwk: { kty: "EC", crv: "P-256", x: x!, y: y!, kid: key.kid, alg: "ES256", use: "sig" },
    signsFrom: key.signsFrom,
  };
}
