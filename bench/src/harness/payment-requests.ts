// The requests the payments scenario sends, as autocannon request builders. Bodies are built per request
// (unique Idempotency-Key, random user), so the server never sees a replay it could answer from a cache.
// A payment carries its shopper's customer token; a deposit, the shop server's key (bench-identity.ts).
import type { Request } from "autocannon";
import type { BenchIdentity } from "./bench-identity.ts";

/** Enough for every payment a long run can draw on one wallet (amounts below are at most 10,000). */
export const FUNDING_AMOUNT = 10_000_000;

export const benchUserId = (index: number): string => `bench-user-${index}`;

/**
 * Request headers for a JSON body, a fresh object each call: autocannon writes the body's Content-Length into
 * the headers object it is given, and a shared object would carry a stale length into the next request that
 * uses it (a fetch then sends a body shorter than announced and waits for an answer that never comes).
 */
export const jsonHeaders = (extra: Record<string, string> = {}): Record<string, string> => ({
  "content-type": "application/json",
  ...extra,
});

/**
 * POST /v1/payments for a random user among `users`, as that user (its customer token; the body still names it,
 * as a shopper may, so a run with AUTH=off sends the same body); collects the ids of 2xx responses.
 */
export function paymentRequest(options: {
  users: number;
  keyPrefix: string;
  acceptedIds: string[];
  identity: BenchIdentity;
}): Request {
  let sequence = 0;
  return {
    method: "POST",
    path: "/v1/payments",
    setupRequest: (request) => {
      sequence++;
      const userId = benchUserId(Math.floor(Math.random() * options.users));
      const amount = 100 * (1 + Math.floor(Math.random() * 100));
      return {
        ...request,
        headers: jsonHeaders({
          ...options.identity.shopperHeaders(userId),
          "idempotency-key": `${options.keyPrefix}-${sequence}`,
        }),
        body: JSON.stringify({ userId, amount }),
      };
    },
    onResponse: (status, body) => {
      if (status < 200 || status >= 300) return;
      const id = parseId(body);
      if (id !== null) options.acceptedIds.push(id);
    },
  };
}

/** POST /v1/wallets/:userId/deposits for each user in `userIds`, in order, by the shop's server. */
export function depositRequest(options: { userIds: readonly string[]; identity: BenchIdentity }): Request {
  let next = 0;
  return {
    method: "POST",
    setupRequest: (request) => {
      const userId = options.userIds[next++ % options.userIds.length]!;
      return {
        ...request,
        path: `/v1/wallets/${userId}/deposits`,
        headers: jsonHeaders(options.identity.serverHeaders()),
        body: JSON.stringify({ amount: FUNDING_AMOUNT }),
      };
    },
  };
}

export function parseId(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { id?: unknown };
    return typeof parsed.id === "string" ? parsed.id : null;
  } catch {
    return null;
  }
}
