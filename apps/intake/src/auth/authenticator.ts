// Turns a bearer into a verified Caller, or a 401 problem saying why (RFC 6750's WWW-Authenticate included).
// Local only: a server key is checked against this process's cache, a customer token by its signature, the
// admin key against its digest. No Redis or Postgres call.
import {
  API_KEY_PREFIX,
  CustomerTokenError,
  type CustomerTokenVerifier,
  type VerifiedCustomer,
} from "@floodgate/auth";
import { adminKeyMatches } from "../auth/admin-auth.ts";
import { ProblemError } from "../errors/error-catalogue.ts";
import type { Caller } from "./caller.ts";
import type { ServerKeyCache } from "./server-key-cache.ts";

const REALM = 'Bearer realm="floodgate"';
const BEARER = /^Bearer +([\x21-\x7E]+) *$/i;

/** AUTH=off: every caller acts as the shop's server would. */
const UNVERIFIED_SERVER: Caller = { kind: "server", keyId: "auth-off" };

export interface AuthenticatorDeps {
  enabled: boolean;
  serverKeys: ServerKeyCache;
  customerTokens: CustomerTokenVerifier;
  /** SHA-256 of ADMIN_API_KEY, or null when the deployment has none. */
  adminKeyDigest: Buffer | null;
}

export class Authenticator {
  readonly #deps: AuthenticatorDeps;

  constructor(deps: AuthenticatorDeps) {
    this.#deps = deps;
  }

  /** The bearer of an Authorization header value; a malformed header is a 401, not ignored. */
  bearerOf(header: string | undefined): string | undefined {
    if (header === undefined) return undefined;
    const match = BEARER.exec(header);
    if (match === null) {
      throw unauthorized("unauthorized", "the Authorization header must be `Bearer <credential>`");
    }
    return match[1];
  }

  /**
   * The caller of an Authorization header `Bearer <token>` whose customer token this process verified before:
   * one lookup, before any parsing. Null otherwise, and the header goes through bearerOf and authenticateNow.
   */
  rememberedCustomer(authorization: string | undefined): Caller | null {
    if (!this.#deps.enabled || authorization === undefined) return null;
    return this.#deps.customerTokens.rememberedBearer(authorization) ?? null;
  }

  async authenticate(bearer: string | undefined): Promise<Caller> {
    return this.authenticateNow(bearer) ?? this.#shopCustomer(bearer!);
  }

  /**
   * The caller when no await is needed (AUTH=off, a server key, the admin key, a customer token seen before or
   * minted by Floodgate), or a 401 thrown; null for a shop's token not seen yet, which only authenticate()
   * verifies. The request hook asks this first: a promise per request was a measurable share of the intake's
   * CPU (issue 30).
   */
  authenticateNow(bearer: string | undefined): Caller | null {
    if (!this.#deps.enabled) return UNVERIFIED_SERVER;
    if (bearer === undefined) {
      throw unauthorized(
        "unauthorized",
        "send Authorization: Bearer <credential>: the shop's server key (fg_sk_…) or a customer token",
      );
    }
    if (bearer.startsWith(API_KEY_PREFIX)) {
      const keyId = this.#deps.serverKeys.verify(bearer);
      if (keyId === null)
        throw unauthorized("unauthorized", "this server key is unknown or revoked", "invalid_token");
      return { kind: "server", keyId };
    }
    try {
      const customer = this.#deps.customerTokens.verifyLocally(bearer);
      return customer === null ? null : customerCaller(customer);
    } catch (error) {
      return this.#refused(bearer, error);
    }
  }

  async #shopCustomer(bearer: string): Promise<Caller> {
    try {
      return customerCaller(await this.#deps.customerTokens.verify(bearer));
    } catch (error) {
      return this.#refused(bearer, error);
    }
  }

  /** A bearer no customer token verifier accepted: the admin key, or the 401 saying why. */
  #refused(bearer: string, error: unknown): Caller {
    if (!(error instanceof CustomerTokenError)) throw error;
    // The admin key is tried last, once the bearer is no customer's token (only a token signed with a
    // configured key is), so a shopper's request never pays its SHA-256 (profiled at about 4 % of the
    // intake's CPU in a coupon drop); the comparison stays constant-time.
    const { adminKeyDigest } = this.#deps;
    if (adminKeyDigest !== null && adminKeyMatches(bearer, adminKeyDigest)) return { kind: "admin" };
    throw error.reason === "expired"
      ? unauthorized(
          "token_expired",
          "the customer token has expired: ask the shop's server for a new one",
          "invalid_token",
        )
      : unauthorized("invalid_token", error.message, "invalid_token");
  }
}

/** A verified customer is a Caller as it is (remembered with its token, so no object per request). */
const customerCaller = (customer: VerifiedCustomer): Caller => customer;

function unauthorized(
  code: "unauthorized" | "invalid_token" | "token_expired",
  detail: string,
  error?: "invalid_token",
): ProblemError {
  // RFC 6750 §3: error_description is a quoted string of visible ASCII without `"` or `\`.
  const description = detail.replace(/["\\]/g, "'").replace(/[^\x20-\x7E]/g, "");
  const challenge =
    error === undefined ? REALM : `${REALM}, error="${error}", error_description="${description}"`;
  return new ProblemError(code, {
    field: "Authorization",
    detail,
    headers: { "WWW-Authenticate": challenge },
  });
}
