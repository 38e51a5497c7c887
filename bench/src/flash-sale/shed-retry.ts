// A shopper's request that the intake shed (503 busy, Retry-After 1) is sent again a second later with the same
// body and Idempotency-Key, as the checkout SDK does: a busy moment delays the shopper, it does not turn it away,
// and a retry is never applied twice.
import type { KeepAliveClient } from "../harness/keep-alive-client.ts";

/** Tries per request while the intake sheds load, a second apart. */
export const SHED_ATTEMPTS = 30;

export interface ShedRetryAnswer {
  status: number;
  body: string;
  /** The attempts' own times added up (the seconds waited between them left out). */
  latencyMs: number;
  /** Requests sent: more than one when the first ones were shed. */
  attempts: number;
}

/** Sends until the answer is not a 503 (or SHED_ATTEMPTS were). */
export async function sendThroughShedding(
  client: KeepAliveClient,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<ShedRetryAnswer> {
  let latencyMs = 0;
  for (let attempts = 1; ; attempts++) {
    const answer = await client.send("POST", path, body, headers);
    latencyMs += answer.latencyMs;
    if (answer.status !== 503 || attempts >= SHED_ATTEMPTS) return { ...answer, latencyMs, attempts };
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
