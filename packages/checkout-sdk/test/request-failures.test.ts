// How a call fails when the request does, against a real intake process (no worker: what it accepts stays
// pending, which is all these calls need): a baseUrl that is no URL is a TypeError at once, never a retried
// "network error"; a rate limit, a dropped connection and a reused Idempotency-Key each arrive as their own
// class, saying whether the same request may still succeed.
import {
  createTestEnvironment,
  type IntakeProcess,
  startIntakeProcess,
  startTcpProxy,
  type TcpProxy,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConnectionError,
  createCheckout,
  FloodgateError,
  IdempotencyConflictError,
  RateLimitError,
} from "../src/index.ts";
import { eventually } from "./support/eventually.ts";
import { ADMIN_API_KEY, resetRateLimit, setUserRateLimit } from "./support/room-admin.ts";

let env: TestEnvironment;
let intake: IntakeProcess;
let proxy: TcpProxy;

beforeAll(async () => {
  env = await createTestEnvironment("checkout-sdk-failures", { env: { ADMIN_API_KEY } });
  intake = await startIntakeProcess(env.config);
  proxy = await startTcpProxy("127.0.0.1", intake.port);
});

afterAll(async () => {
  await proxy?.close();
  await intake?.kill();
  await env?.cleanup();
});

const shopServer = (baseUrl = intake.baseUrl, options: { maxRetries?: number } = {}) =>
  createCheckout({ baseUrl, getToken: () => env.serverKey, ...options });

describe("a baseUrl that is no URL", () => {
  it.each([
    ["empty, outside a page", ""],
    ["relative, outside a page", "/api"],
    ["not a URL at all", "http://"],
    ["not http or https", "ftp://api.shop.example"],
  ])("throws a TypeError from createCheckout (%s), before any request", (_case, baseUrl) => {
    let fetched = 0;
    const fetch = async () => {
      fetched++;
      return new Response("{}");
    };
    expect(() => createCheckout({ baseUrl, fetch })).toThrow(TypeError);
    expect(fetched).toBe(0);
  });

  it("says what is wrong with it", () => {
    expect(() => createCheckout({ baseUrl: "" })).toThrow(/outside a page it must be absolute/);
  });

  it("takes an absolute one with or without a trailing slash", async () => {
    for (const baseUrl of [intake.baseUrl, `${intake.baseUrl}/`]) {
      expect(await shopServer(baseUrl).wallet("newcomer")).toMatchObject({ userId: "newcomer", balance: 0 });
    }
  });
});

describe("typed failures", () => {
  it("a 429 still refused after the retries is a RateLimitError: retryable, with Retry-After and the request id", async () => {
    await setUserRateLimit(intake.baseUrl, "payments", { rate: 1, burst: 1 });
    try {
      // A load balancer in front of the intake that gives each request its id: the intake keeps it, echoes it
      // and names it in its problems.
      let stamped = 0;
      const fetch = async (url: string, init?: RequestInit) => {
        const headers = new Headers(init?.headers);
        headers.set("x-request-id", `lb-${++stamped}`);
        return globalThis.fetch(url, { ...init, headers });
      };
      const checkout = createCheckout({
        baseUrl: intake.baseUrl,
        getToken: () => env.serverKey,
        fetch,
        maxRetries: 0,
      });
      // No worker: the payment stays pending, but it took the bucket's one token.
      const first = checkout.pay({ userId: "hasty", amount: 5 });
      await eventually(() => first.id, "the first payment accepted");
      const error = await checkout
        .pay({ userId: "hasty", amount: 5 })
        .result()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error).toBeInstanceOf(FloodgateError);
      expect(error).toMatchObject({
        code: "rate_limited",
        status: 429,
        retryable: true,
        requestId: `lb-${stamped}`,
      });
      expect((error as RateLimitError).retryAfterSeconds).toBeGreaterThan(0);
    } finally {
      await resetRateLimit(intake.baseUrl, "payments");
    }
  });

  it("a connection refused on every attempt is a ConnectionError: network_error, retryable, with its cause", async () => {
    await proxy.down();
    try {
      const checkout = shopServer(`http://127.0.0.1:${proxy.port}`, { maxRetries: 1 });
      const error = await checkout.product("prd_x").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error).toBeInstanceOf(FloodgateError);
      expect(error).toMatchObject({ code: "network_error", status: undefined, retryable: true });
      expect((error as Error).cause).toBeInstanceOf(Error);
      expect(error).toMatchObject({ requestId: undefined }); // no answer, so no server id
    } finally {
      await proxy.up();
    }
  });

  it("an Idempotency-Key reused for another request is an IdempotencyConflictError, not retryable", async () => {
    const checkout = shopServer();
    const first = checkout.pay({ userId: "twice", amount: 100, idempotencyKey: "order-77-payment" });
    const firstId = await eventually(() => first.id, "the first payment accepted");
    const error = await checkout
      .pay({ userId: "twice", amount: 200, idempotencyKey: "order-77-payment" })
      .result()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IdempotencyConflictError);
    expect(error).toMatchObject({ code: "idempotency_key_reused", status: 422, retryable: false });
    expect((error as IdempotencyConflictError).existingId).toBe(firstId);
  });
});
