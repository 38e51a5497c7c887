// verifyAdmission: is this admission token good for this room, now? Offline by default: the signature against
// the intake's JWKS, the issuer, the times and the room. Offline verification cannot see what happened after
// the token was signed: a revocation (DELETE /v1/rooms/:roomId/tokens/:ticketId) or, where tokens are meant for
// one use, that one was already used. `online: true` also asks the intake (POST
// /v1/rooms/:roomId/admissions/verify): one request to it per verification, after the offline checks pass.
import { type AdmissionClaims, checkSignature, readClaims, splitToken } from "./admission-claims.ts";
import { AdmissionVerificationError } from "./admission-verification-error.ts";
import { RemoteJwks } from "./remote-jwks.ts";

export interface VerifyAdmissionOptions {
  /** The intake's GET /.well-known/jwks.json. */
  jwksUrl: string | URL;
  /** The room the token must admit to. */
  roomId: string;
  /** Also ask the intake whether the admission still stands (revocations). Default false. */
  online?: boolean;
  /** Where `online` asks; default the JWKS URL's origin. */
  intakeUrl?: string | URL;
  /** The `iss` the intake signs (default "floodgate"). */
  issuer?: string;
  /** Leeway for exp and nbf against this server's clock (default 0). */
  clockToleranceSeconds?: number;
  /** Minimum time between JWKS fetches caused by an unknown kid (default 10 s). */
  unknownKidCooldownMs?: number;
}

/** Offline verifications remembered per verifier, by the token's whole text (as the intake remembers them). */
const REMEMBERED_TOKENS = 10_000;
const ONLINE_TIMEOUT_MS = 5_000;

export class AdmissionVerifier {
  readonly #options: VerifyAdmissionOptions;
  readonly #jwks: RemoteJwks;
  readonly #verified = new Map<string, AdmissionClaims & { notBefore?: number }>();

  constructor(options: VerifyAdmissionOptions) {
    this.#options = options;
    this.#jwks = new RemoteJwks(options.jwksUrl, { unknownKidCooldownMs: options.unknownKidCooldownMs });
  }

  /** The token's claims; throws AdmissionVerificationError (its `code` says why) when it does not admit. */
  async verify(token: string, nowMs = Date.now()): Promise<AdmissionClaims> {
    const claims = this.#verified.get(token) ?? (await this.#verifySignature(token));
    const tolerance = (this.#options.clockToleranceSeconds ?? 0) * 1000;
    if (claims.expiresAt + tolerance <= nowMs) {
      throw new AdmissionVerificationError("expired", "admission token: expired");
    }
    if (claims.notBefore !== undefined && claims.notBefore - tolerance > nowMs) {
      throw new AdmissionVerificationError("not_yet_valid", "admission token: not valid yet (nbf)");
    }
    if (claims.roomId !== this.#options.roomId) {
      throw new AdmissionVerificationError(
        "wrong_room",
        `admission token: admits to room ${claims.roomId}, not ${this.#options.roomId}`,
      );
    }
    if (this.#options.online) await this.#askIntake(token);
    const { notBefore: _, ...admission } = claims;
    return admission;
  }

  async #verifySignature(token: string) {
    const parts = splitToken(token);
    checkSignature(parts, await this.#jwks.key(parts.kid));
    const claims = readClaims(parts.payload, this.#options.issuer ?? "floodgate");
    this.#verified.set(token, claims);
    if (this.#verified.size > REMEMBERED_TOKENS) this.#verified.delete(this.#verified.keys().next().value!);
    return claims;
  }

  async #askIntake(token: string): Promise<void> {
    const base = this.#options.intakeUrl ?? new URL("/", this.#options.jwksUrl);
    const url = new URL(`/v1/rooms/${encodeURIComponent(this.#options.roomId)}/admissions/verify`, base);
    let answer: { valid?: unknown; reason?: unknown };
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ token }),
        signal: AbortSignal.timeout(ONLINE_TIMEOUT_MS),
      });
      if (!response.ok) throw new Error(`${url} answered ${response.status}`);
      answer = (await response.json()) as typeof answer;
    } catch (error) {
      throw new AdmissionVerificationError(
        "intake_unavailable",
        `admission check: ${(error as Error).message}`,
      );
    }
    if (answer.valid === true) return;
    const reason = ONLINE_REASONS.has(answer.reason as string) ? (answer.reason as OnlineReason) : "revoked";
    throw new AdmissionVerificationError(
      reason,
      `the intake refused the admission: ${String(answer.reason)}`,
    );
  }
}

type OnlineReason = "revoked" | "unknown_ticket" | "expired" | "wrong_room" | "bad_signature" | "malformed";
const ONLINE_REASONS = new Set<string>([
  "revoked",
  "unknown_ticket",
  "expired",
  "wrong_room",
  "bad_signature",
  "malformed",
]);

/** One verifier per JWKS URL and room, so repeated calls share the fetched keys and remembered tokens. */
const verifiers = new Map<string, AdmissionVerifier>();

/**
 * Verifies an admission token against the intake's JWKS (fetched, cached for its max-age, fetched again for a
 * kid not seen yet); resolves to its claims or rejects with AdmissionVerificationError.
 */
export function verifyAdmission(token: string, options: VerifyAdmissionOptions): Promise<AdmissionClaims> {
  const key = JSON.stringify([
    String(options.jwksUrl),
    options.roomId,
    options.online ?? false,
    options.intakeUrl === undefined ? null : String(options.intakeUrl),
    options.issuer ?? null,
    options.clockToleranceSeconds ?? 0,
    options.unknownKidCooldownMs ?? null,
  ]);
  let verifier = verifiers.get(key);
  if (verifier === undefined) {
    verifier = new AdmissionVerifier(options);
    verifiers.set(key, verifier);
  }
  return verifier.verify(token);
}
