// When a failed delivery is tried again: exponential from WEBHOOK_RETRY_BASE_MS (30 s by default), doubling
// up to a ceiling of 6 h, for as many attempts as it takes to span three days. With the default base: 30 s,
// 1 min, 2 min ... 4.3 h (ten retries, 8.5 h in all), then every 6 h: 22 attempts over about 3.1 days. A test
// sets a base of a second and sees the same doubling in seconds.
import { doublingDelayMs } from "@floodgate/backoff";

export const RETRY_SPAN_MS = 3 * 86_400_000;
export const RETRY_CEILING_MS = 6 * 3_600_000;

/** The delay before retry `n` (1 = the first retry). */
export function retryDelayMs(baseMs: number, n: number): number {
  return doublingDelayMs({ firstMs: baseMs, maxMs: RETRY_CEILING_MS }, n);
}

/** Attempts in all (the first one and its retries) so that the retries span RETRY_SPAN_MS. */
export function deliveryAttempts(baseMs: number): number {
  let retries = 0;
  for (let spent = 0; spent < RETRY_SPAN_MS; ) spent += retryDelayMs(baseMs, ++retries);
  return retries + 1;
}
