// Verifies a shopper's bearer: a token Floodgate minted (HS256 with CUSTOMER_TOKEN_SECRET) or one the shop
// signed itself (CUSTOMER_JWT_*: a JWKS URL, a PEM public key or a shared secret, with its issuer and
// audience). Local crypto only: no Redis or Postgres call, so the intake's budget per request is unchanged.
// The issuer picks the key before anything is trusted; `alg` must be one the key was configured for, so
// `alg: none` and an HS256 token signed with a public key are refused by construction.
import { createPublicKey, type KeyObject } from "node:crypto";
import type { CustomerJwtSettings } from "@floodgate/config";
import { createRemoteJWKSet, decodeJwt, errors, type JWTVerifyGetKey, jwtVerify } from "jose";
import {
  CUSTOMER_TOKEN_ALGORITHM,
  CUSTOMER_TOKEN_AUDIENCE,
  CUSTOMER_TOKEN_ISSUER,
} from "./customer-token-signer.ts";
import { VerifiedTokenCache } from "./verified-token-cache.ts";

const USER_ID = /^[A-Za-z0-9_-]{1,64}$/;

export type TokenRefusalReason = "invalid" | "expired";

export class CustomerTokenError extends Error {
  readonly reason: TokenRefusalReason;
  constructor(reason: TokenRefusalReason, message: string) {
    super(message);
    this.name = "CustomerTokenError";
    this.reason = reason;
  }
}

export interface VerifiedCustomer {
  userId: string;
  /** Unix ms. */
  expiresAt: number;
}

interface Issuer {
  key: Uint8Array | KeyObject | JWTVerifyGetKey;
  audience: string;
  algorithms: string[];
}

export interface CustomerTokenVerifierOptions {
  /** Key of the tokens Floodgate mints. */
  secret: string;
  /** The shop's own tokens; null: only Floodgate's are accepted. */
  shop: CustomerJwtSettings | null;
  /** Verified tokens remembered (a shopper sends the same one many times). */
  cacheSize?: number;
}

export class CustomerTokenVerifier {
  readonly #issuers = new Map<string, Issuer>();
  readonly #cache: VerifiedTokenCache;

  constructor(options: CustomerTokenVerifierOptions) {
    this.#cache = new VerifiedTokenCache(options.cacheSize ?? 100_000);
    this.#issuers.set(CUSTOMER_TOKEN_ISSUER, {
      key: new TextEncoder().encode(options.secret),
      audience: CUSTOMER_TOKEN_AUDIENCE,
      algorithms: [CUSTOMER_TOKEN_ALGORITHM],
    });
    const shop = options.shop;
    if (shop !== null) {
      if (shop.issuer === CUSTOMER_TOKEN_ISSUER) {
        throw new Error(`CUSTOMER_JWT_ISSUER must not be "${CUSTOMER_TOKEN_ISSUER}", Floodgate's own issuer`);
      }
      this.#issuers.set(shop.issuer, {
        key: shopKey(shop),
        audience: shop.audience,
        algorithms: shop.algorithms,
      });
    }
  }

  async verify(token: string, now = Date.now()): Promise<VerifiedCustomer> {
    const cached = this.#cache.get(token);
    if (cached !== undefined) {
      if (cached.expiresAt <= now) throw new CustomerTokenError("expired", "the token has expired");
      return cached;
    }
    let issuer: Issuer | undefined;
    try {
      const claims = decodeJwt(token);
      issuer = typeof claims.iss === "string" ? this.#issuers.get(claims.iss) : undefined;
    } catch {
      throw new CustomerTokenError("invalid", "the bearer is neither a server key nor a JWT");
    }
    if (issuer === undefined)
      throw new CustomerTokenError("invalid", "the token's issuer is not trusted here");
    try {
      const { payload } = await jwtVerify(token, issuer.key as Uint8Array, {
        audience: issuer.audience,
        algorithms: issuer.algorithms,
        requiredClaims: ["sub", "exp"],
        currentDate: new Date(now),
      });
      const userId = payload.sub!;
      if (!USER_ID.test(userId)) {
        throw new CustomerTokenError("invalid", "the token's subject is not a valid user id");
      }
      const verified = { userId, expiresAt: payload.exp! * 1000 };
      this.#cache.set(token, verified);
      return verified;
    } catch (error) {
      if (error instanceof CustomerTokenError) throw error;
      if (error instanceof errors.JWTExpired)
        throw new CustomerTokenError("expired", "the token has expired");
      if (error instanceof errors.JOSEError) {
        throw new CustomerTokenError("invalid", `the token was refused: ${error.message}`);
      }
      throw error;
    }
  }
}

function shopKey(shop: CustomerJwtSettings): Uint8Array | KeyObject | JWTVerifyGetKey {
  if (shop.jwksUrl !== undefined) {
    // jose caches the set and fetches it again when a token names a kid it does not hold (a rotation), at
    // most once per cooldown, so a flood of unknown kids cannot turn into a flood of fetches; a new signing
    // key is accepted within the cooldown of its first use.
    return createRemoteJWKSet(new URL(shop.jwksUrl), { cooldownDuration: 5_000, cacheMaxAge: 600_000 });
  }
  if (shop.publicKeyPem !== undefined) return createPublicKey(shop.publicKeyPem);
  return new TextEncoder().encode(shop.secret!);
}
