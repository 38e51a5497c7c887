// What an Idempotency-Key remembers of its request: a hash of the fields that define it, compared on replay
// (same fingerprint: the same operation; another: a 422). One-shot hashing: it runs on every accepted request.
import { hash } from "node:crypto";

export const requestFingerprint = (...fields: string[]): string =>
  hash("sha256", fields.join("\n"), "base64url");
