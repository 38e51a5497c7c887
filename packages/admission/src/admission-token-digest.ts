// What a room pass keeps of the admission token handed out for its ticket (includes/room-passes.lua): the first 16
// bytes of the token's SHA-256, in hex. The intake's gate admits a token only when its digest is the pass's
// (includes/admission-gate.lua): any other token, however well signed, is not the one handed out. 128 bits: a
// second token with the same digest is a SHA-256 preimage search, and the pass is read only for the user's own
// ticket. About a microsecond per token, against tens for an ES256 signature check.
import { createHash } from "node:crypto";

export const ADMISSION_TOKEN_DIGEST_CHARS = 32;

export function admissionTokenDigest(token: string): string {
  return createHash("sha256").update(token).digest("hex").slice(0, ADMISSION_TOKEN_DIGEST_CHARS);
}
