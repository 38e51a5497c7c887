// How long to wait before attempt n+1: capped exponential backoff with full jitter (a uniform wait in
// [0, min(cap, base * 2^n)]), so the thousands of pages one overload refused do not all come back in step; and
// never sooner than the server's Retry-After, which is its own pacing.

const BASE_MS = 250;
const CAP_MS = 8_000;

export function retryDelayMs(attempt: number, retryAfterSeconds = 0): number {
  return Math.max(retryAfterSeconds * 1000, Math.random() * Math.min(CAP_MS, BASE_MS * 2 ** attempt));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
