// ADMISSION_SIGNING_KEYS: the ES256 keys of admission tokens given in the environment instead of the global
// database, as a JWK set ({"keys": [...]}) of P-256 private keys, each with its kid. The first key signs; the
// others verify (and are published) only, which is how a rotation is rolled out by hand: put the new key first
// once every intake and shop has had the set with it second. The value is a secret: errors never echo it.
import type { JsonWebKey } from "node:crypto";
import { ConfigError } from "./env-reader.ts";

export interface ConfiguredSigningKey {
  kid: string;
  privateJwk: JsonWebKey;
}

const NAME = "ADMISSION_SIGNING_KEYS";
const KID = /^[A-Za-z0-9._~-]{1,128}$/;
const COORDINATE = /^[A-Za-z0-9_-]{43}$/; // 32 bytes, base64url without padding

export function parseAdmissionSigningKeys(value: string | undefined): ConfiguredSigningKey[] | null {
  if (value === undefined) return null;
  let set: unknown;
  try {
    set = JSON.parse(value);
  } catch {
    throw new ConfigError(NAME, 'must be a JWK set in JSON ({"keys": [...]})');
  }
  const keys = (set as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0) {
    throw new ConfigError(NAME, 'must be a JWK set with at least one key ({"keys": [...]})');
  }
  const kids = new Set<string>();
  return keys.map((key: Record<string, unknown> | null, index) => {
    const where = `key ${index + 1}`;
    if (key === null || typeof key !== "object") throw new ConfigError(NAME, `${where} is not a JWK`);
    const { kid, kty, crv, x, y, d } = key;
    if (typeof kid !== "string" || !KID.test(kid)) {
      throw new ConfigError(NAME, `${where} needs a kid (1-128 characters of A-Z a-z 0-9 . _ ~ -)`);
    }
    if (kids.has(kid)) throw new ConfigError(NAME, `${where} repeats kid ${kid}`);
    kids.add(kid);
    if (kty !== "EC" || crv !== "P-256") {
      throw new ConfigError(NAME, `key ${kid} must be an EC P-256 key (kty "EC", crv "P-256")`);
    }
    for (const [member, coordinate] of [
      ["x", x],
      ["y", y],
      ["d", d],
    ] as const) {
      if (typeof coordinate !== "string" || !COORDINATE.test(coordinate)) {
        throw new ConfigError(NAME, `key ${kid} needs ${member}: 32 bytes in base64url (a private key)`);
      }
    }
    return { kid, privateJwk: { kty, crv, x, y, d } as JsonWebKey };
  });
}
