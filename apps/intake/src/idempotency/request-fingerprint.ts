// What an Idempotency-Key remembers of its request: a hash of the fields that define it, compared on replay
// (same fingerprint: the same operation; another: a 422). One-shot hashing: it runs on every keyed request.
import { hash } from "node:crypto";

export const requestFingerprint = (...fields: string[]): string =>
  hash("sha256", fields.join("\n"), "base64url");

/**
 * The fingerprint to send with a request: "" when it carries no Idempotency-Key, since the scripts store and
 * compare one only under a key (an idempotency TTL of 0 skips both), so an unkeyed request hashes nothing.
 */
export const fingerprintUnderKey = (idempotencyKey: string | undefined, ...fields: string[]): string =>
  idempotencyKey === undefined ? "" : requestFingerprint(...fields);
