// The call's `signal` and the per-request timeout, against a real intake process reached through a TCP proxy
// that can hold its answers (a connection that hangs is made, not waited for). No worker runs: what the intake
// accepts stays pending, so an operation's status watch goes on until the signal ends it.
import {
  createTestEnvironment,
  type IntakeProcess,
  startIntakeProcess,
  startTcpProxy,
  type TcpProxy,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CheckoutOptions, ConnectionError, createCheckout } from "../src/index.ts";
import { eventually } from "./support/eventually.ts";
import { ADMIN_API_KEY } from "./support/room-admin.ts";

let env: TestEnvironment;
let intake: IntakeProcess;
let proxy: TcpProxy;
let proxied: string;

beforeAll(async () => {
  env = await createTestEnvironment("checkout-sdk-cancel", { env: { ADMIN_API_KEY } });
  intake = await startIntakeProcess(env.config);
  proxy = await startTcpProxy("127.0.0.1", intake.port);
  proxied = `http://127.0.0.1:${proxy.port}`;
});

afterAll(async () => {
  await proxy?.close();
  await intake?.kill();
  await env?.cleanup();
});

interface Sent {
  method: string;
  path: string;
  idempotencyKey: string | null;
  signal: AbortSignal;
  answer?: Response;
}

/** The real fetch, every attempt written down with its signal; `onSend` runs as each one leaves. */
function watchedFetch(onSend: (sent: Sent) => void = () => {}) {
  const sent: Sent[] = [];
  const fetchFn = async (url: string, init?: RequestInit) => {
    const call: Sent = {
      method: init?.method ?? "GET",
      path: new URL(url).pathname,
      idempotencyKey: new Headers(init?.headers).get("idempotency-key"),
      signal: init?.signal as AbortSignal,
    };
    sent.push(call);
    onSend(call);
    call.answer = await fetch(url, init);
    return call.answer;
  };
  return { fetch: fetchFn, sent };
}

type Options = Omit<CheckoutOptions, "getToken">;
const shopServer = (options: Options) => createCheckout({ getToken: () => env.serverKey, ...options });

describe("the per-request timeout", () => {
  it("gives up on an attempt that hangs and retries it with the same Idempotency-Key", async () => {
    proxy.holdReplies();
    // The first attempt reaches the intake, which accepts the payment, but its answer is held until the SDK
    // has given up on it; then answers flow again.
    const watched = watchedFetch((call) =>
      call.signal.addEventListener("abort", () => proxy.releaseReplies(), { once: true }),
    );
    const controller = new AbortController();
    // 3 s: the first attempt times out for certain (its answer is held); the retry must be answered within it,
    // through the proxy, on a machine the whole suite keeps busy.
    const checkout = shopServer({
      baseUrl: proxied,
      fetch: watched.fetch,
      timeoutMs: 3_000,
      WebSocket: null,
    });
    const payment = checkout.pay({ userId: "patient", amount: 40, signal: controller.signal });
    await eventually(() => payment.id, "the payment accepted");
    controller.abort();

    const posts = watched.sent.filter((call) => call.method === "POST");
    expect(posts).toHaveLength(2);
    expect(posts[0]!.signal.reason).toMatchObject({ name: "TimeoutError" });
    expect(new Set(posts.map((call) => call.idempotencyKey))).toEqual(new Set([payment.idempotencyKey]));
    // The retry was answered with the payment the hung attempt had created: one payment, not two.
    expect(posts[1]!.answer?.headers.get("idempotent-replayed")).toBe("true");
  });

  it("ends in a ConnectionError with code timeout when every attempt hangs", async () => {
    proxy.holdReplies();
    try {
      const checkout = shopServer({ baseUrl: proxied, timeoutMs: 200, maxRetries: 1 });
      const error = await checkout.wallet("stuck").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error).toMatchObject({ code: "timeout", retryable: true });
      expect((error as Error).cause).toMatchObject({ name: "TimeoutError" });
    } finally {
      proxy.releaseReplies();
    }
  });
});

describe("the call's signal", () => {
  it("cancels the request in flight: result() rejects with its reason and nothing is retried", async () => {
    proxy.holdReplies();
    try {
      const controller = new AbortController();
      const watched = watchedFetch();
      const checkout = shopServer({ baseUrl: proxied, fetch: watched.fetch });
      const payment = checkout.pay({ userId: "hesitant", amount: 10, signal: controller.signal });
      await eventually(() => watched.sent.length === 1, "the payment sent");
      const reason = new Error("the shopper closed the dialog");
      controller.abort(reason);
      await expect(payment.result()).rejects.toBe(reason);
      expect(payment.status()).toBe("aborted");
      // fetch was handed the abort, which closes the request's connection.
      expect(watched.sent[0]!.signal.aborted).toBe(true);
      expect(watched.sent).toHaveLength(1);
    } finally {
      proxy.releaseReplies();
    }
  });

  it("cancels a read", async () => {
    proxy.holdReplies();
    try {
      const controller = new AbortController();
      const read = shopServer({ baseUrl: proxied }).wallet("reader", { signal: controller.signal });
      controller.abort();
      await expect(read).rejects.toMatchObject({ name: "AbortError" });
    } finally {
      proxy.releaseReplies();
    }
  });

  it("sends nothing when it is already aborted", async () => {
    const watched = watchedFetch();
    const checkout = shopServer({ baseUrl: intake.baseUrl, fetch: watched.fetch });
    const signal = AbortSignal.abort();
    await expect(checkout.pay({ userId: "late", amount: 1, signal }).result()).rejects.toBe(signal.reason);
    await expect(checkout.product("prd_x", { signal })).rejects.toBe(signal.reason);
    expect(watched.sent).toHaveLength(0);
  });

  it("stops the polling that follows an accepted operation", async () => {
    const controller = new AbortController();
    const watched = watchedFetch();
    const checkout = shopServer({
      baseUrl: intake.baseUrl,
      fetch: watched.fetch,
      WebSocket: null,
      pollIntervalMs: 20,
    });
    const payment = checkout.pay({ userId: "watcher", amount: 3, signal: controller.signal });
    const polls = () => watched.sent.filter((call) => call.method === "GET").length;
    await eventually(() => polls() >= 2, "two polls");
    controller.abort();
    await expect(payment.result()).rejects.toMatchObject({ name: "AbortError" });
    const pollsAtAbort = polls();
    // Ten poll intervals later, no poll has been sent.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(polls()).toBe(pollsAtAbort);
  });

  it("closes the operation's WebSocket", async () => {
    const sockets: WebSocket[] = [];
    class KeptWebSocket extends WebSocket {
      constructor(url: string) {
        super(url);
        sockets.push(this);
      }
    }
    const controller = new AbortController();
    const checkout = shopServer({ baseUrl: intake.baseUrl, WebSocket: KeptWebSocket });
    const payment = checkout.pay({ userId: "listener", amount: 3, signal: controller.signal });
    await eventually(() => sockets[0]?.readyState === WebSocket.OPEN, "the operation's socket open");
    controller.abort();
    await expect(payment.result()).rejects.toMatchObject({ name: "AbortError" });
    await eventually(() => sockets[0]!.readyState === WebSocket.CLOSED, "the socket closed");
    expect(sockets).toHaveLength(1);
  });
});
