import { randomBytes } from "node:crypto";

/**
 * A secret `start` gives the processes it runs: the configured one when set, else a random one for this run,
 * so the feature works out of the box on a developer machine and no fixed default secret exists anywhere.
 * base64url of `bytes` random bytes: visible ASCII, within ADMIN_API_KEY's and ADMISSION_TOKEN_SECRET's rules.
 */
export function secretForRun(configured: string | null, bytes: number): { key: string; generated: boolean } {
  if (configured !== null) return { key: configured, generated: false };
  return { key: randomBytes(bytes).toString("base64url"), generated: true };
}

/** The admin key: 24 bytes, 32 characters (printed once when generated, so an operator can use it). */
export const adminKeyForRun = (configured: string | null) => secretForRun(configured, 24);

/** The customer tokens' HMAC key: 32 bytes, 256 bits (never printed: it signs). */
export const customerTokenSecretForRun = (configured: string | null) => secretForRun(configured, 32);

/** The admission tokens' HMAC key: 32 bytes, 256 bits (never printed: it signs). */
export const admissionSecretForRun = (configured: string | null) => secretForRun(configured, 32);
