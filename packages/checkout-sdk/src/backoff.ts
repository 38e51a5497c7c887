// How long to wait before the next attempt after `failures` consecutive failures: doubling from baseMs up to
// maxMs, with jitter so the thousands of pages a dropped intake disconnected do not all come back in step.

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
}

export const RECONNECT_BACKOFF: BackoffPolicy = { baseMs: 250, maxMs: 5_000 };

/** A delay in [cap/2, cap], cap = min(maxMs, baseMs * 2^(failures-1)). */
export function backoffDelayMs(failures: number, policy: BackoffPolicy = RECONNECT_BACKOFF): number {
  const cap = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, failures - 1));
  return cap / 2 + Math.random() * (cap / 2);
}
