// A shop's server key: `fg_sk_<id>_<secret>`. The id (12 characters) finds the record without trusting the
// caller; the secret (256 random bits) is what proves the key. Only SHA-256(key) is ever stored or shared
// between processes; the key itself is shown once, when it is created.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const API_KEY_PREFIX = "fg_sk_";
const ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789";
const API_KEY_PATTERN = /^fg_sk_([a-z2-9]{12})_([A-Za-z0-9_-]{43})$/;

export interface NewApiKey {
  id: string;
  /** The bearer, `fg_sk_…`: returned once, never stored. */
  key: string;
  hash: Buffer;
}

export const hashApiKey = (key: string): Buffer => createHash("sha256").update(key, "utf8").digest();

export function generateApiKey(): NewApiKey {
  const id = Array.from(randomBytes(12), (byte) => ID_ALPHABET[byte % ID_ALPHABET.length]).join("");
  const key = `${API_KEY_PREFIX}${id}_${randomBytes(32).toString("base64url")}`;
  return { id, key, hash: hashApiKey(key) };
}

/** The key's id, or null when the string is not shaped like a server key. */
export function apiKeyId(key: string): string | null {
  return API_KEY_PATTERN.exec(key)?.[1] ?? null;
}

/** Constant time in the key's content: both sides are 32-byte digests. */
export function apiKeyMatches(key: string, storedHash: Buffer): boolean {
  return storedHash.length === 32 && timingSafeEqual(hashApiKey(key), storedHash);
}
