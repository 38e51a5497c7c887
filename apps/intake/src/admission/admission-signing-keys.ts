// The admission token signer of this intake process, and where its keys come from: ES256 with the keys of
// ADMISSION_SIGNING_KEYS or of the global database (the first one inserted here if absent, so every intake
// agrees on it), or HS256 with ADMISSION_TOKEN_SECRET (ADMISSION_TOKEN_ALG=HS256, deprecated). The database's
// keys are read at start and every RELOAD_EVERY_MS, and at once (at most every UNKNOWN_KID_RELOAD_MS) when a token
// names a key not held here: a rotation signs only after its lead (keys rotate --lead), so every process has
// read the new key before any token carries it. Nothing here runs per request.
import { randomBytes } from "node:crypto";
import {
  type AdmissionClaims,
  type AdmissionSigningKey,
  type AdmissionTokens,
  Es256AdmissionTokens,
  Hs256AdmissionTokens,
  type PublicAdmissionJwk,
} from "@floodgate/admission";
import { ensureAdmissionSigningKey, readAdmissionSigningKeys, VerifiedTokenCache } from "@floodgate/auth";
import type { Config } from "@floodgate/config";
import type { GlobalDatabase } from "@floodgate/db";
import type { FastifyBaseLogger } from "fastify";
import type { Kysely } from "kysely";

const RELOAD_EVERY_MS = 30_000;
const UNKNOWN_KID_RELOAD_MS = 5_000;
/** Verified ES256 tokens remembered (about 30 MB when full, like the customer tokens' cache). */
const VERIFIED_TOKENS_REMEMBERED = 100_000;

export class AdmissionSigningKeys {
  readonly tokens: AdmissionTokens;
  readonly #es256: Es256AdmissionTokens | null;
  readonly #db: Kysely<GlobalDatabase> | null;
  readonly #log: FastifyBaseLogger;
  #timer: NodeJS.Timeout | undefined;
  #reloading: Promise<void> | undefined;
  #lastUnknownKidReload = 0;

  constructor(config: Config, db: Kysely<GlobalDatabase>, log: FastifyBaseLogger) {
    this.#log = log;
    if (config.admissionTokenAlg === "HS256") {
      if (config.admissionTokenSecret === null) {
        log.warn(
          "ADMISSION_TOKEN_SECRET is not set: this process signs admission tokens with a key of its own, which other intake processes will refuse",
        );
      }
      this.tokens = new Hs256AdmissionTokens(
        config.admissionTokenSecret ?? randomBytes(32).toString("base64url"),
      );
      this.#es256 = null;
      this.#db = null;
      return;
    }
    const configured = config.admissionSigningKeys;
    this.#es256 = new Es256AdmissionTokens({
      keys: (configured ?? []).map((key) => ({ ...key, signsFrom: 0 })),
      cache: new VerifiedTokenCache<AdmissionClaims>(VERIFIED_TOKENS_REMEMBERED),
      onUnknownKey: () => this.#reloadForUnknownKey(),
    });
    this.tokens = this.#es256;
    this.#db = configured === null ? db : null;
  }

  /** The public keys GET /.well-known/jwks.json serves (none with HS256). */
  publicKeys(): PublicAdmissionJwk[] {
    return this.#es256?.publicKeys ?? [];
  }

  /** The kid new tokens carry now (null with HS256, or while no key is loaded). */
  signingKid(): string | null {
    return this.#es256?.signingKid() ?? null;
  }

  /** First load (the first key made if absent), then a reload every RELOAD_EVERY_MS. */
  async start(): Promise<void> {
    if (this.#db === null) return;
    await this.reload();
    this.#timer = setInterval(() => void this.reload(), RELOAD_EVERY_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** One reload at a time; failures are logged and the keys already held kept. */
  reload(): Promise<void> {
    this.#reloading ??= this.#readAll().finally(() => {
      this.#reloading = undefined;
    });
    return this.#reloading;
  }

  async #readAll(): Promise<void> {
    const db = this.#db;
    if (db === null || this.#es256 === null) return;
    try {
      if (this.#es256.publicKeys.length === 0) await ensureAdmissionSigningKey(db);
      const rows = await readAdmissionSigningKeys(db);
      const keys: AdmissionSigningKey[] = rows.map(({ kid, privateJwk, signsFrom }) => ({
        kid,
        privateJwk,
        signsFrom,
      }));
      this.#es256.setKeys(keys);
    } catch (error) {
      this.#log.warn(
        { err: (error as Error).message },
        "admission: signing keys not read from the global database (this process keeps those it holds)",
      );
    }
  }

  #reloadForUnknownKey(): void {
    const now = Date.now();
    if (this.#db === null || now - this.#lastUnknownKidReload < UNKNOWN_KID_RELOAD_MS) return;
    this.#lastUnknownKidReload = now;
    void this.reload();
  }
}
