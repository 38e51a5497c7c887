// The requests of the coupon drop, as an autocannon request builder: a fixed, shuffled order in which every
// user appears requests/users times, so a user's attempts race each other and everyone else's. Each request
// carries its user's customer token: one client can no longer claim for made-up users.
import type { Request } from "autocannon";
import type { BenchIdentity } from "../harness/bench-identity.ts";

export const dropUserId = (index: number): string => `drop-user-${index}`;

/** User indexes, each user `requests / users` times (the first `requests % users` once more), shuffled with a
 * fixed seed so a run can be replayed. */
export function dropOrder(requests: number, users: number, seed = 42): Uint32Array {
  const order = new Uint32Array(requests);
  for (let i = 0; i < requests; i++) order[i] = i % users;
  let state = seed;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  for (let i = requests - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/**
 * POST /v1/coupons/:couponId/issues in `order`. 202 bodies' ids go to `accepted` (id -> user); every answered
 * request counts in `attempts` (user -> answers).
 */
export function couponIssueRequest(options: {
  couponId: string;
  order: Uint32Array;
  accepted: Map<string, string>;
  attempts: Map<string, number>;
  identity: BenchIdentity;
}): Request {
  let next = 0;
  return {
    method: "POST",
    path: `/v1/coupons/${options.couponId}/issues`,
    setupRequest: (request, context) => {
      // Modulo: autocannon may build one request per connection more than it sends.
      const userId = dropUserId(options.order[next++ % options.order.length]!);
      context.userId = userId; // pipelining 1: the next response on this connection answers this request
      return {
        ...request,
        headers: { "content-type": "application/json", ...options.identity.shopperHeaders(userId) },
        body: JSON.stringify({ userId }),
      };
    },
    onResponse: (status, body, context) => {
      const userId = String(context.userId);
      options.attempts.set(userId, (options.attempts.get(userId) ?? 0) + 1);
      if (status !== 202) return;
      try {
        const id = (JSON.parse(body) as { id?: unknown }).id;
        if (typeof id === "string") options.accepted.set(id, userId);
      } catch {
        // counted by status; an unreadable 202 body shows up as a missing id in the invariants
      }
    },
  };
}
