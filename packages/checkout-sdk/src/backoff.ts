// How long to wait before attempt n+1: capped exponential backoff with full jitter (a uniform wait in
// [0, min(cap, base * 2^n)]), so the thousands of pages one overload refused do not all come back in step; and
// never sooner than the server's Retry-After, which is its own pacing.
// The server's processes share one formula (packages/backoff: doublingDelayMs, jitter "full", is this);
// the SDK keeps this copy because it ships alone, with no runtime dependency and nothing server-side.

const BASE_MS = 250;
const CAP_MS = 8_000;

export function retryDelayMs(attempt: number, retryAfterSeconds = 0): number {
  return Math.max(retryAfterSeconds * 1000, Math.random() * Math.min(CAP_MS, BASE_MS * 2 ** attempt));
}

/** Resolves after `ms`; rejects with the signal's reason as soon as it aborts (a cancelled call stops waiting). */
export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
