// Retries against a real intake process and worker: a network failure after the server took the payment (the
// retry carries the same Idempotency-Key, so the server holds one payment), a real 429 from the rate limiter
// and a real 503 from an intake whose Redis is unreachable (reached through a proxy the test takes down), each
// retried with the same key no sooner than the Retry-After the server sent. Shoppers pay with a customer token;
// the shop's server funds their wallets with its key.
import {
  createTestEnvironment,
  type IntakeProcess,
  startIntakeProcess,
  startTcpProxy,
  startWorkerProcess,
  type TcpProxy,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CheckoutOptions, createCheckout } from "../src/index.ts";
import { shopperTokens } from "./support/customer-sessions.ts";
import { type RecordedCall, recordingFetch } from "./support/recording-fetch.ts";
import { ADMIN_API_KEY, resetRateLimit, setUserRateLimit } from "./support/room-admin.ts";

let env: TestEnvironment;
let redisProxy: TcpProxy;
let intake: IntakeProcess;
let worker: WorkerProcess;

beforeAll(async () => {
  env = await createTestEnvironment("checkout-sdk-retries", { env: { ADMIN_API_KEY } });
  const redis = new URL(env.config.redisUrl);
  redisProxy = await startTcpProxy(redis.hostname, Number(redis.port || 6379));
  redis.port = String(redisProxy.port);
  // Only the intake reaches Redis through the proxy: the worker keeps working while the intake cannot.
  [intake, worker] = await Promise.all([
    startIntakeProcess({ ...env.config, redisUrl: redis.toString() }),
    startWorkerProcess(env.config),
  ]);
});

afterAll(async () => {
  await worker?.stop();
  await intake?.kill();
  await redisProxy?.close();
  await env?.cleanup();
});

const RESULT_WAIT = { timeoutMs: 30_000 };

type Options = Omit<CheckoutOptions, "baseUrl" | "getToken">;
const shopServer = (options: Options = {}) =>
  createCheckout({ baseUrl: intake.baseUrl, getToken: () => env.serverKey, ...options });
const shopper = (userId: string, options: Options = {}) =>
  createCheckout({
    baseUrl: intake.baseUrl,
    getToken: shopperTokens(intake.baseUrl, env.serverKey, userId).getToken,
    ...options,
  });
// Timers may fire a hair before the millisecond they were set for; anything beyond this is a real early retry.
const TIMER_SLACK_MS = 15;

/** Each retry after a refusal started at least Retry-After after that refusal arrived. */
function expectRetryAfterHonoured(attempts: RecordedCall[]) {
  for (let i = 1; i < attempts.length; i++) {
    const before = attempts[i - 1]!;
    if (before.retryAfter === null) continue;
    const waited = attempts[i]!.sentAt - before.answeredAt;
    expect(waited).toBeGreaterThanOrEqual(Number(before.retryAfter) * 1000 - TIMER_SLACK_MS);
  }
}

describe("retries", () => {
  it("retries a lost answer with the same Idempotency-Key, and the server holds one payment", async () => {
    await shopServer().deposit({ userId: "unlucky", amount: 1000 }).result(RESULT_WAIT);

    let dropped = 0;
    const recorder = recordingFetch({
      dropAnswer: (call) => call.method === "POST" && call.path === "/v1/payments" && dropped++ === 0,
    });
    const checkout = shopper("unlucky", { fetch: recorder.fetch });
    const payment = checkout.pay({ amount: 300 });
    const final = await payment.result(RESULT_WAIT);
    expect(final).toMatchObject({ id: payment.id, status: "succeeded", amount: 300 });

    const posts = recorder.to("POST", /^\/v1\/payments$/);
    expect(posts.map((call) => [call.droppedStatus ?? call.status, call.idempotencyKey])).toEqual([
      [202, payment.idempotencyKey],
      [202, payment.idempotencyKey],
    ]);
    // The first attempt created the payment; the retry was answered with it.
    expect(JSON.parse(posts[0]!.body).id).toBe(payment.id);
    expect(JSON.parse(posts[1]!.body).id).toBe(payment.id);
    expect(await checkout.wallet("unlucky")).toMatchObject({ balance: 700 });
  });

  it("waits Retry-After after a 429 and retries with the same key", async () => {
    await setUserRateLimit(intake.baseUrl, "payments", { rate: 1, burst: 1 });
    try {
      const recorder = recordingFetch();
      await shopServer().deposit({ userId: "impatient", amount: 100 }).result(RESULT_WAIT);
      const checkout = shopper("impatient", { fetch: recorder.fetch });
      const first = checkout.pay({ amount: 5 });
      const second = checkout.pay({ amount: 5 });
      await Promise.all([first.result(RESULT_WAIT), second.result(RESULT_WAIT)]);

      const posts = recorder.to("POST", /^\/v1\/payments$/);
      const limited = posts.filter((call) => call.status === 429);
      expect(limited.length).toBeGreaterThanOrEqual(1);
      for (const operation of [first, second]) {
        const attempts = posts.filter((call) => call.idempotencyKey === operation.idempotencyKey);
        expect(attempts.at(-1)!.status).toBe(202);
        expect(attempts.slice(0, -1).every((call) => call.status === 429 && call.retryAfter !== null)).toBe(
          true,
        );
        expectRetryAfterHonoured(attempts);
      }
    } finally {
      await resetRateLimit(intake.baseUrl, "payments");
    }
  });

  it("waits Retry-After after a 503 and retries with the same key until the intake recovers", async () => {
    let broken = false;
    const recorder = recordingFetch();
    const checkout = shopServer({
      maxRetries: 20,
      fetch: async (url, init) => {
        // Redis goes away just before the deposit is sent, and comes back once the intake refused it.
        if (!broken && init?.method === "POST") {
          broken = true;
          await redisProxy.down();
        }
        const response = await recorder.fetch(url, init);
        if (response.status === 503) await redisProxy.up();
        return response;
      },
    });
    const deposit = checkout.deposit({ userId: "through-an-outage", amount: 250 });
    expect(await deposit.result(RESULT_WAIT)).toMatchObject({ id: deposit.id, status: "succeeded" });

    const posts = recorder.to("POST", /\/deposits$/);
    expect(posts[0]).toMatchObject({ status: 503, retryAfter: expect.stringMatching(/^\d+$/) });
    expect(JSON.parse(posts[0]!.body)).toMatchObject({ code: "service_unavailable", retryable: true });
    expect(posts.at(-1)!.status).toBe(202);
    expect(new Set(posts.map((call) => call.idempotencyKey))).toEqual(new Set([deposit.idempotencyKey]));
    expectRetryAfterHonoured(posts);
  });
});
