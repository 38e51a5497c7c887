// Verifies a shopper's bearer: a token Floodgate minted (HS256 with CUSTOMER_TOKEN_SECRET) or one the shop
// signed itself (CUSTOMER_JWT_*: a JWKS URL, a PEM public key or a shared secret, with its issuer and
// audience). Local crypto only: no Redis or Postgres call, so the intake's budget per request is unchanged.
// The issuer picks the key before anything is trusted; `alg` must be one the key was configured for, so
// `alg: none` and an HS256 token signed with a public key are refused by construction. Floodgate's own tokens
// take a faster path of their own (own-token-check.ts).
import { createPublicKey, createSecretKey, type KeyObject } from "node:crypto";
import type { CustomerJwtSettings } from "@floodgate/config";
import { isCanonicalBase64url } from "@floodgate/domain";
import { createRemoteJWKSet, errors, type JWTVerifyGetKey, jwtVerify } from "jose";
import { CUSTOMER_TOKEN_ISSUER } from "./customer-token-signer.ts";
import { checkOwnToken } from "./own-token-check.ts";
import { VerifiedTokenCache } from "./verified-token-cache.ts";

const USER_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Tokens are remembered as the Authorization header that carries them is usually spelled. */
const BEARER_PREFIX = "Bearer ";

/** About 30 MB of a process's heap when full (a token of ~210 characters, its entry and its verdict). */
export const DEFAULT_CACHE_SIZE = 100_000;

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
  /** So the intake can hold a verified customer as its caller as is (one object per token, not per request). */
  kind: "customer";
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
  /**
   * Verified tokens remembered, both kinds (CUSTOMER_TOKEN_CACHE_SIZE); 0 remembers none. A shopper sends the
   * same token with every request of a sale, and a map lookup costs far less than a signature check.
   */
  cacheSize?: number;
}

export class CustomerTokenVerifier {
  readonly #issuers = new Map<string, Issuer>();
  readonly #cache: VerifiedTokenCache<VerifiedCustomer>;
  readonly #ownKey: KeyObject;

  constructor(options: CustomerTokenVerifierOptions) {
    this.#cache = new VerifiedTokenCache<VerifiedCustomer>(options.cacheSize ?? DEFAULT_CACHE_SIZE);
    this.#ownKey = createSecretKey(Buffer.from(options.secret, "utf8"));
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
    const local = this.#verifyHere(token, now);
    return "foreignIssuer" in local ? this.#verifyShopToken(token, local.foreignIssuer, now) : local;
  }

  /**
   * The verdict that needs no await: a token verified before, or one of Floodgate's own (throws
   * CustomerTokenError when either is refused). Null for a shop's token not seen yet, which only verify() checks
   * (jose, perhaps a JWKS fetch). The intake's request hook takes this path first, so a shopper's requests after
   * the first cost no promise.
   */
  verifyLocally(token: string, now = Date.now()): VerifiedCustomer | null {
    const local = this.#verifyHere(token, now);
    return "foreignIssuer" in local ? null : local;
  }

  /**
   * The customer a whole Authorization header names when it is `Bearer <token>`, spelled so, with a token
   * verified before and not yet expired; undefined otherwise (any other spelling, a token not seen yet, an
   * expired one): the header then goes the usual way (its bearer, verify). A shopper's every request after the
   * first is this one lookup, with no match and no string cut from the header.
   */
  rememberedBearer(authorization: string, now = Date.now()): VerifiedCustomer | undefined {
    return this.#cache.getUnexpired(authorization, now);
  }

  /** The cache's or our own key's verdict, or the issuer a shop's token names (undefined when none). */
  #verifyHere(token: string, now: number): VerifiedCustomer | { foreignIssuer: unknown } {
    // A token whose signature once verified is looked up by its whole text (so a hit is the very same bytes),
    // as `Bearer <token>` (how rememberedBearer meets it), and its expiry is still checked on every request.
    // Even our own HMAC costs the intake about 13 µs per request under a sale's load (profiled: creating the
    // HMAC context, not hashing), against under 1 µs for the lookup (0.5-0.6 µs in a microbenchmark that
    // touches other memory between lookups; verified-token-cache.ts); that difference was most of what auth
    // cost the --max bench.
    const cached = this.#cache.get(BEARER_PREFIX + token);
    if (cached !== undefined) {
      if (cached.expiresAt <= now) throw new CustomerTokenError("expired", "the token has expired");
      return cached;
    }
    const own = checkOwnToken(token, this.#ownKey, now);
    if (own.ok) return this.#remember(token, this.#valid(own.userId, own.expiresAt));
    if (own.reason !== "foreign") throw new CustomerTokenError(own.reason, own.message);
    return { foreignIssuer: own.issuer };
  }

  async #verifyShopToken(token: string, issuerName: unknown, now: number): Promise<VerifiedCustomer> {
    const issuer = typeof issuerName === "string" ? this.#issuers.get(issuerName) : undefined;
    if (issuer === undefined) {
      throw new CustomerTokenError("invalid", "the token's issuer is not trusted here");
    }
    // jose reads a padded signature like the unpadded one: one spelling only, as for our own (the cache).
    if (!isCanonicalBase64url(token.slice(token.lastIndexOf(".") + 1))) {
      throw new CustomerTokenError("invalid", "the token's signature is not canonical base64url");
    }
    const options = {
      audience: issuer.audience,
      algorithms: issuer.algorithms,
      requiredClaims: ["sub", "exp"],
      currentDate: new Date(now),
    };
    try {
      const { key } = issuer;
      const { payload } =
        typeof key === "function"
          ? await jwtVerify(token, key, options)
          : await jwtVerify(token, key, options);
      return this.#remember(token, this.#valid(payload.sub!, payload.exp! * 1000));
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

  /** How many verified tokens this verifier holds (bounded by cacheSize). */
  get rememberedTokens(): number {
    return this.#cache.size;
  }

  #remember(token: string, verified: VerifiedCustomer): VerifiedCustomer {
    this.#cache.set(BEARER_PREFIX + token, verified);
    return verified;
  }

  #valid(userId: string, expiresAt: number): VerifiedCustomer {
    if (!USER_ID.test(userId)) {
      throw new CustomerTokenError("invalid", "the token's subject is not a valid user id");
    }
    // Frozen: the intake hands this one object to every request of the token as its caller.
    return Object.freeze({ kind: "customer", userId, expiresAt });
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
