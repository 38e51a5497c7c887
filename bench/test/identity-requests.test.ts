// Which credentials each of the bench's requests carries: a shopper's own customer token for what a browser
// sends (payments, coupon claims), the shop server's key for deposits, and nothing at all with AUTH=off.
import type { RequestContext } from "autocannon";
import { describe, expect, it } from "vitest";
import { couponIssueRequest } from "../src/coupon-drop/coupon-requests.ts";
import { NO_IDENTITY } from "../src/harness/bench-identity.ts";
import { depositRequest, paymentRequest } from "../src/harness/payment-requests.ts";
import { knownTokens } from "./test-identity.ts";

type Builder = ReturnType<typeof paymentRequest>;

function build(request: Builder) {
  const context: RequestContext = {};
  const params = request.setupRequest!({ method: request.method, path: request.path }, context)!;
  return { headers: params.headers ?? {}, body: JSON.parse(params.body!) as Record<string, unknown>, params };
}

describe("paymentRequest", () => {
  it("pays as the user it picked: that user's token, the same user in the body", () => {
    const request = paymentRequest({ users: 50, keyPrefix: "run", acceptedIds: [], identity: knownTokens });
    for (let i = 0; i < 20; i++) {
      const { headers, body } = build(request);
      expect(headers.authorization).toBe(`Bearer token-of-${body.userId}`);
      expect(headers["content-type"]).toBe("application/json");
      expect(headers["idempotency-key"]).toBe(`run-${i + 1}`);
    }
  });

  it("sends no credentials with AUTH=off, and the same body", () => {
    const request = paymentRequest({ users: 5, keyPrefix: "run", acceptedIds: [], identity: NO_IDENTITY });
    const { headers, body } = build(request);
    expect(headers).toEqual({ "content-type": "application/json", "idempotency-key": "run-1" });
    expect(Object.keys(body).sort()).toEqual(["amount", "userId"]);
  });
});

describe("depositRequest", () => {
  it("deposits as the shop's server (its key), never with a shopper's token", () => {
    const request = depositRequest({ userIds: ["bench-user-7", "bench-user-8"], identity: knownTokens });
    const first = build(request);
    const second = build(request);
    expect(first.params.path).toBe("/v1/wallets/bench-user-7/deposits");
    expect(second.params.path).toBe("/v1/wallets/bench-user-8/deposits");
    expect([first.headers.authorization, second.headers.authorization]).toEqual([
      "Bearer fg_sk_test",
      "Bearer fg_sk_test",
    ]);
  });

  it("gives each request a headers object of its own (autocannon writes Content-Length into it)", () => {
    const request = depositRequest({ userIds: ["a"], identity: knownTokens });
    const first = build(request);
    first.headers["Content-Length"] = "99";
    expect(build(request).headers["Content-Length"]).toBeUndefined();
  });
});

describe("couponIssueRequest", () => {
  it("claims as the user in the drop order, with that user's token", () => {
    const request = couponIssueRequest({
      couponId: "cpn_1",
      order: Uint32Array.from([3, 1]),
      accepted: new Map(),
      attempts: new Map(),
      identity: knownTokens,
    });
    const built = [build(request), build(request)];
    expect(built.map((b) => b.body.userId)).toEqual(["drop-user-3", "drop-user-1"]);
    expect(built.map((b) => b.headers.authorization)).toEqual([
      "Bearer token-of-drop-user-3",
      "Bearer token-of-drop-user-1",
    ]);
  });
});
