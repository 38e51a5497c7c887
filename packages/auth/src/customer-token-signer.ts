// Customer tokens Floodgate mints (POST /v1/customer-sessions, like Stripe's ephemeral keys): a JWT signed
// HS256 with CUSTOMER_TOKEN_SECRET, whose subject is the shopper. Every intake process shares the secret, so a
// token minted by one is accepted by all, with no lookup.
import { SignJWT } from "jose";

export const CUSTOMER_TOKEN_ISSUER = "floodgate";
export const CUSTOMER_TOKEN_AUDIENCE = "floodgate:customer";
export const CUSTOMER_TOKEN_ALGORITHM = "HS256";

export interface MintedCustomerToken {
  token: string;
  userId: string;
  expiresAt: Date;
}

export class CustomerTokenSigner {
  readonly #key: Uint8Array;

  constructor(secret: string) {
    this.#key = new TextEncoder().encode(secret);
  }

  /** `issuedAt` (ms) is for tests that need a token already past its expiry. */
  async mint(userId: string, ttlSeconds: number, issuedAt = Date.now()): Promise<MintedCustomerToken> {
    const iat = Math.floor(issuedAt / 1000);
    const exp = iat + ttlSeconds;
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: CUSTOMER_TOKEN_ALGORITHM, typ: "JWT" })
      .setIssuer(CUSTOMER_TOKEN_ISSUER)
      .setAudience(CUSTOMER_TOKEN_AUDIENCE)
      .setSubject(userId)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(this.#key);
    return { token, userId, expiresAt: new Date(exp * 1000) };
  }
}
