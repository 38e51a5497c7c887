// How the shop's own customer tokens are verified (CUSTOMER_JWT_*): exactly one key source (a JWKS URL, a PEM
// public key, or a shared secret), and always an issuer and an audience, so a token minted for another
// service or by another party is never taken for a shopper here.
import { ConfigError, type envReader } from "./env-reader.ts";

export interface CustomerJwtSettings {
  jwksUrl?: string;
  publicKeyPem?: string;
  secret?: string;
  issuer: string;
  audience: string;
  /** The `alg` values accepted; never `none`. */
  algorithms: string[];
}

const ASYMMETRIC = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];
const SYMMETRIC = ["HS256", "HS384", "HS512"];

export function parseCustomerJwt(read: ReturnType<typeof envReader>): CustomerJwtSettings | null {
  const jwksUrl = read.optional("CUSTOMER_JWT_JWKS_URL");
  const publicKeyPem = read.optional("CUSTOMER_JWT_PUBLIC_KEY")?.replace(/\\n/g, "\n");
  const secret = read.secret(
    "CUSTOMER_JWT_SECRET",
    /^[\x21-\x7E]{32,512}$/,
    "32-512 visible ASCII characters",
  );
  const sources = [jwksUrl, publicKeyPem, secret].filter((value) => value !== undefined && value !== null);
  const issuer = read.optional("CUSTOMER_JWT_ISSUER");
  const audience = read.optional("CUSTOMER_JWT_AUDIENCE");
  if (sources.length === 0) {
    if (issuer !== undefined || audience !== undefined) {
      throw new ConfigError(
        "CUSTOMER_JWT_ISSUER",
        "is set but no key is: set CUSTOMER_JWT_JWKS_URL, CUSTOMER_JWT_PUBLIC_KEY or CUSTOMER_JWT_SECRET",
      );
    }
    return null;
  }
  if (sources.length > 1) {
    throw new ConfigError(
      "CUSTOMER_JWT_JWKS_URL",
      "and CUSTOMER_JWT_PUBLIC_KEY and CUSTOMER_JWT_SECRET are alternatives: set exactly one",
    );
  }
  if (issuer === undefined)
    throw new ConfigError("CUSTOMER_JWT_ISSUER", "is required with a customer JWT key");
  if (audience === undefined) {
    throw new ConfigError("CUSTOMER_JWT_AUDIENCE", "is required with a customer JWT key");
  }
  if (jwksUrl !== undefined) read.url("CUSTOMER_JWT_JWKS_URL", jwksUrl, ["https:", "http:"]);
  if (publicKeyPem !== undefined && !/-----BEGIN PUBLIC KEY-----/.test(publicKeyPem)) {
    throw new ConfigError(
      "CUSTOMER_JWT_PUBLIC_KEY",
      "must be a PEM SPKI public key (-----BEGIN PUBLIC KEY-----)",
    );
  }
  const allowed = secret ? SYMMETRIC : ASYMMETRIC;
  const listed = read.optional("CUSTOMER_JWT_ALGORITHMS");
  const algorithms =
    listed === undefined ? (secret ? ["HS256"] : ASYMMETRIC) : listed.split(",").map((a) => a.trim());
  const wrong = algorithms.find((algorithm) => !allowed.includes(algorithm));
  if (wrong !== undefined) {
    throw new ConfigError(
      "CUSTOMER_JWT_ALGORITHMS",
      `may list only ${allowed.join(", ")} for this key, got ${JSON.stringify(wrong)}`,
    );
  }
  return {
    ...(jwksUrl !== undefined ? { jwksUrl } : {}),
    ...(publicKeyPem !== undefined ? { publicKeyPem } : {}),
    ...(secret ? { secret } : {}),
    issuer,
    audience,
    algorithms,
  };
}
