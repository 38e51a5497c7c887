import type { RequestContext, RequestParams } from "autocannon";
import { describe, expect, it } from "vitest";
import { jsonHeaders } from "../src/harness/payment-requests.ts";
import {
  type AcceptedOrder,
  orderPaymentRequest,
  orderRequest,
  parseAcceptedOrder,
} from "../src/hot-product/order-requests.ts";
import { knownTokens } from "./test-identity.ts";

/** Builds one request the way autocannon does, and returns it with its context. */
function build(request: ReturnType<typeof orderRequest>) {
  const context: RequestContext = {};
  const params = request.setupRequest!({ method: request.method, path: request.path }, context)!;
  return { params, context, body: JSON.parse(params.body!) as Record<string, unknown> };
}

describe("orderRequest", () => {
  it("orders one unit of the product from users in turn, each with its own Idempotency-Key", () => {
    const request = orderRequest({
      productId: "prd_1",
      users: 2,
      keyPrefix: "run",
      accepted: [],
      identity: knownTokens,
    });
    const built = [build(request), build(request), build(request)];
    expect(built.map((b) => b.body)).toEqual([
      { userId: "bench-user-0", items: [{ productId: "prd_1", quantity: 1 }] },
      { userId: "bench-user-1", items: [{ productId: "prd_1", quantity: 1 }] },
      { userId: "bench-user-0", items: [{ productId: "prd_1", quantity: 1 }] },
    ]);
    const keys = built.map((b) => (b.params as RequestParams).headers?.["idempotency-key"]);
    expect(new Set(keys).size).toBe(3);
    expect(built[0]!.params).toMatchObject({ method: "POST", path: "/v1/orders" });
    // Each order is its buyer's own: the buyer's customer token, not the shop's key.
    expect(built.map((b) => b.params.headers?.authorization)).toEqual([
      "Bearer token-of-bench-user-0",
      "Bearer token-of-bench-user-1",
      "Bearer token-of-bench-user-0",
    ]);
  });

  it("collects the 202s with the user who ordered, and nothing else", () => {
    const accepted: AcceptedOrder[] = [];
    const request = orderRequest({
      productId: "prd_1",
      users: 10,
      keyPrefix: "run",
      accepted,
      identity: knownTokens,
    });
    const { context } = build(request);
    request.onResponse!(202, JSON.stringify({ id: "ord_1", status: "pending", amount: 10_000 }), context, {});
    request.onResponse!(409, JSON.stringify({ code: "out_of_stock" }), context, {});
    request.onResponse!(202, "not json", context, {});
    expect(accepted).toEqual([{ id: "ord_1", userId: "bench-user-0", amount: 10_000 }]);
  });
});

describe("orderPaymentRequest", () => {
  it("pays each order once with its user, amount and id, keyed by the order", () => {
    const orders = [
      { id: "ord_1", userId: "bench-user-3", amount: 10_000 },
      { id: "ord_2", userId: "bench-user-4", amount: 20_000 },
    ];
    const payments = new Map<string, string>();
    const request = orderPaymentRequest({ orders, payments, identity: knownTokens });
    const first = build(request);
    const second = build(request);
    expect([first.body, second.body]).toEqual([
      { userId: "bench-user-3", amount: 10_000, orderId: "ord_1" },
      { userId: "bench-user-4", amount: 20_000, orderId: "ord_2" },
    ]);
    expect(first.params.headers?.["idempotency-key"]).toBe("pay-ord_1");
    expect(first.params.headers?.authorization).toBe("Bearer token-of-bench-user-3");
    expect(second.params.headers?.authorization).toBe("Bearer token-of-bench-user-4");
    request.onResponse!(202, JSON.stringify({ id: "pay_9", status: "pending" }), second.context, {});
    request.onResponse!(422, JSON.stringify({ code: "bad" }), first.context, {});
    expect([...payments]).toEqual([["pay_9", "ord_2"]]);
  });
});

describe("request helpers", () => {
  it("reads an accepted order only from a well-formed 202 body", () => {
    expect(parseAcceptedOrder('{"id":"ord_1","amount":5}', "u")).toEqual({
      id: "ord_1",
      userId: "u",
      amount: 5,
    });
    expect(parseAcceptedOrder('{"id":"ord_1"}', "u")).toBeNull();
    expect(parseAcceptedOrder("<html>", "u")).toBeNull();
  });

  it("gives every request its own headers object (autocannon writes Content-Length into it)", () => {
    const a = jsonHeaders();
    a["Content-Length"] = "99";
    expect(jsonHeaders()).toEqual({ "content-type": "application/json" });
  });
});
