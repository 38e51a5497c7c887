// The intake's public keys (GET /.well-known/jwks.json), fetched once and kept for the answer's
// Cache-Control max-age. A kid not held makes it fetch again at once (a rotation this process has not seen:
// the intake lists a new key before it signs with it), but at most once per `unknownKidCooldownMs`, so tokens
// naming made-up kids cannot turn every request into a fetch. A failed fetch keeps the keys already held.
import { createPublicKey, type JsonWebKey, type KeyObject } from "node:crypto";
import { AdmissionVerificationError } from "./admission-verification-error.ts";

/** Used when the answer names no max-age (the intake's is 300 s). */
const DEFAULT_MAX_AGE_MS = 300_000;
/** After a failed fetch with keys held, the next attempt waits this long. */
const RETRY_AFTER_FAILURE_MS = 5_000;
const FETCH_TIMEOUT_MS = 5_000;
const MIN_FRESH_MS = 1_000;

export interface VerificationKey {
  kid: string;
  /** The JWS alg the key verifies: "ES256" only, as the intake publishes. */
  alg: "ES256";
  key: KeyObject;
}

export interface RemoteJwksOptions {
  /** Minimum time between two fetches caused by an unknown kid (default 10 s). */
  unknownKidCooldownMs?: number;
  /** Clock, for tests of the cache's ages. */
  now?: () => number;
}

export class RemoteJwks {
  readonly url: string;
  readonly #cooldownMs: number;
  readonly #now: () => number;
  #keys = new Map<string, VerificationKey>();
  #freshUntil = 0;
  #lastUnknownKidFetch = Number.NEGATIVE_INFINITY;
  #fetching: Promise<void> | undefined;

  constructor(url: string | URL, options: RemoteJwksOptions = {}) {
    this.url = String(url);
    this.#cooldownMs = options.unknownKidCooldownMs ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /** The key named `kid`, fetching the set when it is stale or, rate limited, when the kid is not in it. */
  async key(kid: string): Promise<VerificationKey> {
    if (this.#now() >= this.#freshUntil) await this.#refresh();
    let found = this.#keys.get(kid);
    if (found === undefined && this.#now() - this.#lastUnknownKidFetch >= this.#cooldownMs) {
      this.#lastUnknownKidFetch = this.#now();
      await this.#refresh();
      found = this.#keys.get(kid);
    }
    if (found !== undefined) return found;
    if (this.#keys.size === 0) {
      throw new AdmissionVerificationError("jwks_unavailable", `no key could be read from ${this.url}`);
    }
    throw new AdmissionVerificationError("unknown_key", `the JWKS at ${this.url} lists no key ${kid}`);
  }

  /** One fetch at a time; concurrent callers wait for it. */
  #refresh(): Promise<void> {
    this.#fetching ??= this.#fetch().finally(() => {
      this.#fetching = undefined;
    });
    return this.#fetching;
  }

  async #fetch(): Promise<void> {
    try {
      const response = await fetch(this.url, {
        headers: { accept: "application/json" },
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
      if (!response.ok) throw new Error(`${this.url} answered ${response.status}`);
      const body = (await response.json()) as { keys?: unknown };
      if (!Array.isArray(body.keys)) throw new Error(`${this.url} answered no keys array`);
      this.#keys = new Map(readKeys(body.keys).map((key) => [key.kid, key]));
      this.#freshUntil = this.#now() + maxAgeMs(response.headers.get("cache-control"));
    } catch {
      // Keep what is held; try again soon (a verification with no key at all says jwks_unavailable).
      this.#freshUntil = this.#now() + RETRY_AFTER_FAILURE_MS;
    }
  }
}

/** The keys this package can verify with; others (another curve, an HMAC key, no kid) are skipped. */
function readKeys(keys: unknown[]): VerificationKey[] {
  const read: VerificationKey[] = [];
  for (const jwk of keys as (JsonWebKey & { kid?: unknown; alg?: unknown; use?: unknown })[]) {
    if (typeof jwk !== "object" || jwk === null || typeof jwk.kid !== "string") continue;
    if (jwk.kty !== "EC" || jwk.crv !== "P-256" || (jwk.alg !== undefined && jwk.alg !== "ES256")) continue;
    if (jwk.use !== undefined && jwk.use !== "sig") continue;
    try {
      // Only the public members: a set that (wrongly) carried `d` must not make a private key here.
      const key = createPublicKey({ key: { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y }, format: "jwk" });
      read.push({ kid: jwk.kid, alg: "ES256", key });
    } catch {
      // Not a point on the curve: not a key.
    }
  }
  return read;
}

/** How long an answer stays fresh: its max-age (at least MIN_FRESH_MS, so no-cache is not a fetch per request). */
function maxAgeMs(cacheControl: string | null): number {
  const text = cacheControl ?? "";
  if (/no-store|no-cache/i.test(text)) return MIN_FRESH_MS;
  const match = /(?:^|,)\s*max-age=(\d+)/i.exec(text);
  return match === null ? DEFAULT_MAX_AGE_MS : Math.max(Number(match[1]) * 1000, MIN_FRESH_MS);
}
