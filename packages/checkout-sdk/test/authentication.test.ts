// Identity through the SDK, against a real intake process and worker: every call carries the page's bearer and
// the operation's WebSocket carries it as access_token; a customer token past its expiry (really expired, signed
// by the deployment's own key an hour ago) makes the SDK ask getToken() once more and send the same request again
// with the same Idempotency-Key; a token the server cannot take is an AuthenticationError, asked once.
import { CustomerTokenSigner } from "@floodgate/auth";
import {
  createTestEnvironment,
  type IntakeProcess,
  startIntakeProcess,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthenticationError, createCheckout, FloodgateError, type GetToken } from "../src/index.ts";
import { mintCustomerToken } from "./support/customer-sessions.ts";
import { eventually } from "./support/eventually.ts";
import { recordingFetch } from "./support/recording-fetch.ts";
import { refusal } from "./support/refusal.ts";
import { ADMIN_API_KEY } from "./support/room-admin.ts";
import { watchedWebSocket } from "./support/watched-web-socket.ts";

let env: TestEnvironment;
let intake: IntakeProcess;
let worker: WorkerProcess;
let signer: CustomerTokenSigner;

beforeAll(async () => {
  env = await createTestEnvironment("checkout-sdk-auth", { env: { ADMIN_API_KEY } });
  signer = new CustomerTokenSigner(env.config.customerTokenSecret!);
  [intake, worker] = await Promise.all([startIntakeProcess(env.config), startWorkerProcess(env.config)]);
});

afterAll(async () => {
  await worker?.stop();
  await intake?.kill();
  await env?.cleanup();
});

const RESULT_WAIT = { timeoutMs: 30_000 };

/** A token the deployment signed for `userId`, valid for a minute an hour ago: expired, and nothing else wrong. */
const expiredToken = async (userId: string) => (await signer.mint(userId, 60, Date.now() - 3_600_000)).token;

const fund = (userId: string, amount: number) =>
  createCheckout({ baseUrl: intake.baseUrl, getToken: () => env.serverKey })
    .deposit({ userId, amount })
    .result(RESULT_WAIT);

/** A getToken() that answers the given tokens in turn (the last one again), recording each ask. */
function scriptedTokens(...tokens: string[]) {
  const given: string[] = [];
  const getToken: GetToken = () => {
    const token = tokens[Math.min(given.length, tokens.length - 1)]!;
    given.push(token);
    return token;
  };
  return { getToken, given };
}

describe("a shopper's bearer", () => {
  it("goes on every call and, as access_token, on the operation's WebSocket", async () => {
    await fund("carrier", 1000);
    const { token } = await mintCustomerToken(intake.baseUrl, env.serverKey, "carrier");
    const tokens = scriptedTokens(token);
    const sockets = watchedWebSocket();
    const recorder = recordingFetch();
    const checkout = createCheckout({
      baseUrl: intake.baseUrl,
      getToken: tokens.getToken,
      WebSocket: sockets.WebSocket,
      fetch: recorder.fetch,
    });
    const payment = checkout.pay({ amount: 250 });
    expect(await payment.result(RESULT_WAIT)).toMatchObject({ userId: "carrier", status: "succeeded" });
    expect(await checkout.wallet("carrier")).toMatchObject({ userId: "carrier", balance: 750 });

    expect(recorder.calls.map((call) => [`${call.method} ${call.status}`, call.authorization])).toEqual([
      ["POST 202", `Bearer ${token}`],
      ["GET 200", `Bearer ${token}`],
    ]);
    // The final status came over the socket the token opened: nothing polled.
    const socket = new URL(sockets.urls[0]!);
    expect(sockets.urls).toHaveLength(1);
    expect(socket.pathname).toBe(`/v1/operations/${payment.id}/ws`);
    expect(socket.searchParams.get("access_token")).toBe(token);
    expect(sockets.messages.at(-1)?.data).toMatchObject({
      type: "status",
      operation: { status: "succeeded" },
    });
    expect(tokens.given).toEqual([token]);
  });
});

describe("an expired customer token", () => {
  it("is refreshed once through getToken() and the same request is sent again with the same key", async () => {
    await fund("returning", 1000);
    const { token: fresh } = await mintCustomerToken(intake.baseUrl, env.serverKey, "returning");
    const tokens = scriptedTokens(await expiredToken("returning"), fresh);
    const recorder = recordingFetch();
    const checkout = createCheckout({
      baseUrl: intake.baseUrl,
      getToken: tokens.getToken,
      fetch: recorder.fetch,
    });

    const payment = checkout.pay({ amount: 400 });
    expect(await payment.result(RESULT_WAIT)).toMatchObject({ userId: "returning", status: "succeeded" });
    const posts = recorder.to("POST", /^\/v1\/payments$/);
    expect(posts.map((call) => [call.status, call.idempotencyKey])).toEqual([
      [401, payment.idempotencyKey],
      [202, payment.idempotencyKey],
    ]);
    expect(JSON.parse(posts[0]!.body)).toMatchObject({ code: "token_expired", status: 401 });
    expect(posts.map((call) => call.authorization)).toEqual([`Bearer ${tokens.given[0]}`, `Bearer ${fresh}`]);
    expect(tokens.given).toHaveLength(2);

    // The fresh token is kept: the next call does not ask the page again.
    expect(await checkout.wallet("returning")).toMatchObject({ balance: 600 });
    expect(tokens.given).toHaveLength(2);
  });

  it("is refreshed once for every call that saw it expire together", async () => {
    await fund("two-tabs", 1000);
    const { token: fresh } = await mintCustomerToken(intake.baseUrl, env.serverKey, "two-tabs");
    const tokens = scriptedTokens(await expiredToken("two-tabs"), fresh);
    const recorder = recordingFetch();
    const checkout = createCheckout({
      baseUrl: intake.baseUrl,
      getToken: tokens.getToken,
      fetch: recorder.fetch,
    });
    const payments = [checkout.pay({ amount: 100 }), checkout.pay({ amount: 200 })];
    for (const payment of payments)
      expect(await payment.result(RESULT_WAIT)).toMatchObject({ status: "succeeded" });
    expect(tokens.given).toHaveLength(2);
    for (const payment of payments) {
      const attempts = recorder.calls.filter((call) => call.idempotencyKey === payment.idempotencyKey);
      expect(attempts.map((call) => call.status)).toEqual([401, 202]);
    }
  });

  it("that getToken() answers again rejects with AuthenticationError token_expired after one retry", async () => {
    const tokens = scriptedTokens(await expiredToken("stale"), await expiredToken("stale-again"));
    const recorder = recordingFetch();
    const checkout = createCheckout({
      baseUrl: intake.baseUrl,
      getToken: tokens.getToken,
      fetch: recorder.fetch,
    });
    const payment = checkout.pay({ amount: 10 });
    const error = await refusal(payment.result());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ name: "AuthenticationError", status: 401, code: "token_expired" });
    expect(payment.status()).toBe("refused");
    expect(tokens.given).toHaveLength(2);
    const posts = recorder.to("POST", /^\/v1\/payments$/);
    expect(posts.map((call) => [call.status, call.idempotencyKey])).toEqual([
      [401, payment.idempotencyKey],
      [401, payment.idempotencyKey],
    ]);
  });
});

/** A token with a valid header and claims for `userId` and a signature nobody made. */
async function forgedToken(userId: string): Promise<string> {
  const { token } = await signer.mint(userId, 600);
  return `${token.split(".").slice(0, 2).join(".")}.${"A".repeat(43)}`;
}

const UNTAKEABLE: [string, () => string | Promise<string>, string][] = [
  ["a token that is not a JWT", () => "not-a-token", "invalid_token"],
  ["a forged signature", () => forgedToken("forger"), "invalid_token"],
  ["an unknown server key", () => `fg_sk_abcdefghijkm_${"x".repeat(43)}`, "unauthorized"],
];

describe("an operation's WebSocket opened with a token that has just expired", () => {
  it("is refused on the socket, and reopened once with the token getToken() gives next", async () => {
    await fund("slow-reader", 1000);
    // Valid for the POST, expired a moment later: minted 57 s into a 60 s life.
    const shortLived = await signer.mint("slow-reader", 60, Date.now() - 57_000);
    const { token: fresh } = await mintCustomerToken(intake.baseUrl, env.serverKey, "slow-reader");
    const tokens = scriptedTokens(shortLived.token, fresh);
    const sockets = watchedWebSocket();
    const recorder = recordingFetch();
    const checkout = createCheckout({
      baseUrl: intake.baseUrl,
      getToken: tokens.getToken,
      WebSocket: sockets.WebSocket,
      // The answer reaches the SDK only once the token has expired, so the socket it opens next carries an
      // expired token: a fault made, not waited for by luck.
      fetch: async (url, init) => {
        const response = await recorder.fetch(url, init);
        await eventually(() => Date.now() > shortLived.expiresAt.getTime(), "the token's expiry", 10_000);
        return response;
      },
    });
    const payment = checkout.pay({ amount: 300 });
    expect(await payment.result(RESULT_WAIT)).toMatchObject({ userId: "slow-reader", status: "succeeded" });

    expect(recorder.calls.map((call) => [`${call.method} ${call.status}`, call.authorization])).toEqual([
      ["POST 202", `Bearer ${shortLived.token}`],
    ]);
    expect(sockets.urls.map((url) => new URL(url).searchParams.get("access_token"))).toEqual([
      shortLived.token,
      fresh,
    ]);
    const [refused] = sockets.messages;
    expect(refused).toMatchObject({ url: sockets.urls[0], data: { type: "error", code: "token_expired" } });
    expect(sockets.messages.at(-1)).toMatchObject({ url: sockets.urls[1], data: { type: "status" } });
    expect(tokens.given).toEqual([shortLived.token, fresh]);
  });
});

describe("a bearer the server cannot take", () => {
  it.each(
    UNTAKEABLE,
  )("rejects with AuthenticationError for %s, asked once and never refreshed", async (_case, make, code) => {
    const token = await make();
    const tokens = scriptedTokens(token);
    const recorder = recordingFetch();
    const checkout = createCheckout({
      baseUrl: intake.baseUrl,
      getToken: tokens.getToken,
      fetch: recorder.fetch,
    });
    const error = await refusal(checkout.pay({ amount: 10 }).result());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toBeInstanceOf(FloodgateError);
    expect(error).toMatchObject({ status: 401, code, problem: { status: 401, code } });
    expect(recorder.calls.map((call) => call.status)).toEqual([401]);
    expect(tokens.given).toHaveLength(1);
  });

  it("rejects with AuthenticationError unauthorized when the page gives no getToken", async () => {
    const checkout = createCheckout({ baseUrl: intake.baseUrl });
    const error = await refusal(checkout.wallet("nobody"));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: "unauthorized" });
  });

  it("rejects with token_unavailable, sending nothing, when getToken() fails", async () => {
    const recorder = recordingFetch();
    const signedOut = new Error("the shopper is signed out");
    const checkout = createCheckout({
      baseUrl: intake.baseUrl,
      fetch: recorder.fetch,
      getToken: () => Promise.reject(signedOut),
    });
    const error = await refusal(checkout.pay({ amount: 10 }).result());
    expect(error).toBeInstanceOf(FloodgateError);
    expect(error).toMatchObject({ code: "token_unavailable", cause: signedOut });
    expect(recorder.calls).toEqual([]);
  });
});
