// The requests of the hot-product scenario, as autocannon request builders: one-unit orders of one product
// from users taken in turn, then one payment per accepted order. Each carries an Idempotency-Key, as a
// checkout client retrying safely would, so the intake does that work too; and its buyer's customer token.
import type { Request } from "autocannon";
import type { BenchIdentity } from "../harness/bench-identity.ts";
import { benchUserId, jsonHeaders, parseId } from "../harness/payment-requests.ts";

export interface AcceptedOrder {
  id: string;
  userId: string;
  amount: number;
}

/** A 202 body of POST /v1/orders, or null when it is not one. */
export function parseAcceptedOrder(body: string, userId: string): AcceptedOrder | null {
  try {
    const { id, amount } = JSON.parse(body) as { id?: unknown; amount?: unknown };
    return typeof id === "string" && typeof amount === "number" ? { id, userId, amount } : null;
  } catch {
    return null;
  }
}

/**
 * POST /v1/orders for one unit of `productId`; request i comes from user (firstUser + i) % users. 202 answers
 * go to `accepted` (an unreadable 202 body shows up as a missing order in the invariants).
 */
export function orderRequest(options: {
  productId: string;
  users: number;
  firstUser?: number;
  keyPrefix: string;
  accepted: AcceptedOrder[];
  identity: BenchIdentity;
}): Request {
  let sequence = 0;
  const firstUser = options.firstUser ?? 0;
  return {
    method: "POST",
    path: "/v1/orders",
    setupRequest: (request, context) => {
      const userId = benchUserId((firstUser + sequence) % options.users);
      sequence++;
      context.userId = userId; // pipelining 1: the next response on this connection answers this request
      return {
        ...request,
        headers: jsonHeaders({
          ...options.identity.shopperHeaders(userId),
          "idempotency-key": `${options.keyPrefix}-${sequence}`,
        }),
        body: JSON.stringify({ userId, items: [{ productId: options.productId, quantity: 1 }] }),
      };
    },
    onResponse: (status, body, context) => {
      if (status !== 202) return;
      const order = parseAcceptedOrder(body, String(context.userId));
      if (order !== null) options.accepted.push(order);
    },
  };
}

/** POST /v1/payments paying each of `orders` in turn, keyed by the order, by its buyer; `payments` collects
 * id -> order. */
export function orderPaymentRequest(options: {
  orders: readonly AcceptedOrder[];
  payments: Map<string, string>;
  identity: BenchIdentity;
}): Request {
  let next = 0;
  return {
    method: "POST",
    path: "/v1/payments",
    setupRequest: (request, context) => {
      // Modulo: autocannon may build one request per connection more than it sends.
      const order = options.orders[next++ % options.orders.length]!;
      context.orderId = order.id;
      return {
        ...request,
        headers: jsonHeaders({
          ...options.identity.shopperHeaders(order.userId),
          "idempotency-key": `pay-${order.id}`,
        }),
        body: JSON.stringify({ userId: order.userId, amount: order.amount, orderId: order.id }),
      };
    },
    onResponse: (status, body, context) => {
      if (status < 200 || status >= 300) return;
      const id = parseId(body);
      if (id !== null) options.payments.set(id, String(context.orderId));
    },
  };
}
