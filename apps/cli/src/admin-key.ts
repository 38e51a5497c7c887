import { randomBytes } from "node:crypto";

/**
 * The admin key `start` gives the intake: ADMIN_API_KEY when set, else a random one for this run (printed
 * once), so the admin routes work out of the box on a developer machine and no fixed default key exists.
 */
export function adminKeyForRun(configured: string | null): { key: string; generated: boolean } {
  if (configured !== null) return { key: configured, generated: false };
  // 24 random bytes: 32 base64url characters, within ADMIN_API_KEY's rules (16-256 visible ASCII).
  return { key: randomBytes(24).toString("base64url"), generated: true };
}
