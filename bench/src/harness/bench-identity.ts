// Who the bench's requests say they are, the way a shop deploying Floodgate does it: the shop's server holds a
// secret API key (created by the admin through POST /v1/api-keys) and funds wallets with it; each shopper's
// browser holds a customer token the shop's server minted for it (POST /v1/customer-sessions), and pays, orders,
// claims and joins with that. With AUTH=off the requests carry no credentials, as before identity existed.
import { randomBytes } from "node:crypto";
import { adminRequest } from "./admin-client.ts";
import { KeepAliveClient } from "./keep-alive-client.ts";
import { formatCount, log, startProgress } from "./progress-line.ts";

export type AuthSetting = "on" | "off";

/** The credentials the system under test is started with: random per run, never written anywhere but its
 * environment (results record them masked). */
export interface RunSecrets {
  adminApiKey: string;
  customerTokenSecret: string;
}

export const runSecrets = (): RunSecrets => ({
  adminApiKey: randomBytes(24).toString("base64url"),
  customerTokenSecret: randomBytes(32).toString("base64url"),
});

/**
 * Customer tokens live for the route's longest ttl (a day): a run mints them once before its load, and a
 * refresh in the middle of a measured phase (the SDK's answer to `token_expired`) is not what a bench measures.
 */
export const CUSTOMER_TOKEN_TTL_SECONDS = 86_400;

/** Mints in flight at once: a setup phase, not a load; enough to keep one intake busy, no more. */
const MINT_PARALLEL = 16;
/** Tries per token while the intake answers 503, a second apart. */
const MINT_ATTEMPTS = 30;
const MINT_RETRY_MS = 1000;

export interface BenchIdentity {
  readonly auth: AuthSetting;
  /** Headers of the shop's server (deposits, customer sessions): its API key. None with AUTH=off. */
  serverHeaders(): Record<string, string>;
  /** Headers of a shopper acting for itself: its customer token. None with AUTH=off. */
  shopperHeaders(userId: string): Record<string, string>;
  /** The shopper's customer token (a WebSocket's `?access_token=`, a worker thread's requests); null with AUTH=off. */
  shopperToken(userId: string): string | null;
  /** Mints a customer token for each of `userIds` that has none yet (setup, not measured). */
  addShoppers(userIds: readonly string[]): Promise<MintedTokens>;
}

export interface MintedTokens {
  minted: number;
  seconds: number;
}

/** AUTH=off: every request is taken as the shop's server acting for the body's (or path's) user. */
export const NO_IDENTITY: BenchIdentity = {
  auth: "off",
  serverHeaders: () => ({}),
  shopperHeaders: () => ({}),
  shopperToken: () => null,
  addShoppers: async () => ({ minted: 0, seconds: 0 }),
};

/** POST /v1/api-keys with the admin key: the shop's server key (shown once). */
export async function createServerKey(baseUrl: string, adminKey: string, name: string): Promise<string> {
  const created = await adminRequest(baseUrl, adminKey, "POST", "/v1/api-keys", { name });
  if (typeof created.key !== "string") throw new Error("POST /v1/api-keys answered without a key");
  return created.key;
}

export class TokenIdentity implements BenchIdentity {
  readonly auth = "on";
  readonly #baseUrl: string;
  readonly #serverAuthorization: string;
  /** userId -> "Bearer <token>", built once: the load's request builders only look it up. */
  readonly #authorizations = new Map<string, string>();

  constructor(baseUrl: string, serverKey: string) {
    this.#baseUrl = baseUrl;
    this.#serverAuthorization = `Bearer ${serverKey}`;
  }

  serverHeaders(): Record<string, string> {
    return { authorization: this.#serverAuthorization };
  }

  shopperHeaders(userId: string): Record<string, string> {
    return { authorization: this.#authorization(userId) };
  }

  shopperToken(userId: string): string {
    return this.#authorization(userId).slice("Bearer ".length);
  }

  async addShoppers(userIds: readonly string[]): Promise<MintedTokens> {
    const missing = [...new Set(userIds)].filter((userId) => !this.#authorizations.has(userId));
    if (missing.length === 0) return { minted: 0, seconds: 0 };
    const started = Date.now();
    const client = new KeepAliveClient(this.#baseUrl, MINT_PARALLEL);
    let next = 0;
    const stopProgress = startProgress(
      () => `minting customer tokens: ${formatCount(next)} of ${formatCount(missing.length)}`,
    );
    const lane = async () => {
      while (next < missing.length) {
        const userId = missing[next++]!;
        const mint = () =>
          client.send(
            "POST",
            "/v1/customer-sessions",
            { userId, ttlSeconds: CUSTOMER_TOKEN_TTL_SECONDS },
            this.serverHeaders(),
          );
        let answer = await mint();
        // A busy intake sheds with 503 (Retry-After 1) and does nothing: the shop's server retries, and so do we.
        for (let attempt = 1; answer.status === 503 && attempt < MINT_ATTEMPTS; attempt++) {
          await new Promise((resolve) => setTimeout(resolve, MINT_RETRY_MS));
          answer = await mint();
        }
        const token = answer.status === 201 ? parseToken(answer.body) : null;
        if (token === null) {
          throw new Error(`POST /v1/customer-sessions for ${userId}: ${answer.status} ${answer.body}`);
        }
        this.#authorizations.set(userId, `Bearer ${token}`);
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(MINT_PARALLEL, missing.length) }, lane));
    } finally {
      stopProgress();
      client.close();
    }
    const seconds = (Date.now() - started) / 1000;
    log(
      `minted ${formatCount(missing.length)} customer tokens in ${seconds.toFixed(1)} s (${formatCount(Math.round(missing.length / Math.max(seconds, 0.001)))}/s)`,
    );
    return { minted: missing.length, seconds };
  }

  #authorization(userId: string): string {
    const authorization = this.#authorizations.get(userId);
    if (authorization === undefined) throw new Error(`no customer token was minted for ${userId}`);
    return authorization;
  }
}

export function parseToken(body: string): string | null {
  try {
    const { token } = JSON.parse(body) as { token?: unknown };
    return typeof token === "string" && token.length > 0 ? token : null;
  } catch {
    return null;
  }
}
