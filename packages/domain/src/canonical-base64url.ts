// A JWS signature read in exactly one spelling: Node's base64url decoder skips characters outside the alphabet
// and ignores padding and the unused bits of the last character (jose accepts padding), so one signature has
// endless spellings, and a token that verifies in each would be endless distinct strings (each one a miss of a
// verified-token cache, each one a fresh signature check). Only the canonical text (RFC 7515: base64url
// without padding) is accepted: re-encoding the decoded bytes must give back the very same string.

/** Whether `text` is base64url in its one canonical spelling (no padding, no stray characters or bits). */
export function isCanonicalBase64url(text: string): boolean {
  return Buffer.from(text, "base64url").toString("base64url") === text;
}

/** The signature's bytes, or undefined when `text` is not the canonical base64url of `byteLength` bytes. */
export function decodeCanonicalBase64url(text: string, byteLength: number): Buffer | undefined {
  if (text.length !== Math.ceil((byteLength * 4) / 3)) return undefined;
  const bytes = Buffer.from(text, "base64url");
  if (bytes.length !== byteLength || bytes.toString("base64url") !== text) return undefined;
  return bytes;
}
