// The five calls in Node against a real intake process and a real worker: result() follows the operation's
// WebSocket to its final status (or polls when the socket is refused), orders are final once they await payment,
// and every refusal arrives as its typed error, asked once and never retried. Shoppers call with a customer
// token their shop minted (their user comes from it); deposits, which only a shop's server may make, with the
// server key.
import {
  createTestEnvironment,
  type IntakeProcess,
  startIntakeProcess,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AlreadyIssuedError,
  type CheckoutOptions,
  createCheckout,
  FloodgateError,
  InsufficientFundsError,
  type MoneyOperationView,
  OutOfStockError,
  PermissionError,
  SoldOutError,
  ValidationError,
} from "../src/index.ts";
import { createCoupon, createProduct } from "./support/catalog-admin.ts";
import { shopperTokens } from "./support/customer-sessions.ts";
import { eventually } from "./support/eventually.ts";
import { recordingFetch } from "./support/recording-fetch.ts";
import { refusal } from "./support/refusal.ts";
import { refusedWebSocket } from "./support/refused-web-socket.ts";
import { ADMIN_API_KEY } from "./support/room-admin.ts";
import { watchedWebSocket } from "./support/watched-web-socket.ts";

let env: TestEnvironment;
let intake: IntakeProcess;
let worker: WorkerProcess;

beforeAll(async () => {
  env = await createTestEnvironment("checkout-sdk-operations", { env: { ADMIN_API_KEY } });
  [intake, worker] = await Promise.all([startIntakeProcess(env.config), startWorkerProcess(env.config)]);
});

afterAll(async () => {
  await worker?.stop();
  await intake?.kill();
  await env?.cleanup();
});

const RESULT_WAIT = { timeoutMs: 30_000 };

type Options = Omit<CheckoutOptions, "baseUrl" | "getToken">;
/** The shop's server: its key acts for any user it names. */
const shopServer = (options: Options = {}) =>
  createCheckout({ baseUrl: intake.baseUrl, getToken: () => env.serverKey, ...options });
/** A shopper's page: a customer token for `userId`, minted by the shop's server. */
const shopper = (userId: string, options: Options = {}) =>
  createCheckout({
    baseUrl: intake.baseUrl,
    getToken: shopperTokens(intake.baseUrl, env.serverKey, userId).getToken,
    ...options,
  });

describe("final status", () => {
  it("resolves result() on the final status the operation's WebSocket pushes, without polling", async () => {
    const sockets = watchedWebSocket();
    const recorder = recordingFetch();
    const checkout = shopServer({ WebSocket: sockets.WebSocket, fetch: recorder.fetch });
    const deposit = checkout.deposit({ userId: "socket-shopper", amount: 5000 });
    const views: MoneyOperationView[] = [];
    deposit.on("status", (view) => views.push(view));
    expect(deposit.status()).toBe("submitting");
    expect(deposit.id).toBeUndefined();

    const final = await deposit.result(RESULT_WAIT);
    expect(final).toMatchObject({
      id: deposit.id,
      userId: "socket-shopper",
      amount: 5000,
      status: "succeeded",
    });
    expect(deposit.id).toMatch(/^dep_/);
    expect(deposit.status()).toBe("succeeded");
    expect(views.at(-1)).toEqual(final);
    // The socket carries the bearer in its query: a browser cannot set headers on a WebSocket.
    expect(sockets.urls).toEqual([
      `ws://127.0.0.1:${intake.port}/v1/operations/${deposit.id}/ws?access_token=${env.serverKey}`,
    ]);
    expect(sockets.messages.at(-1)?.data).toEqual({ type: "status", operation: final });
    // The POST, and nothing else: the status came over the socket.
    expect(recorder.calls.map((call) => `${call.method} ${call.status}`)).toEqual(["POST 202"]);
    // A second result() is the same final view.
    expect(await deposit.result()).toEqual(final);
    expect(await checkout.wallet("socket-shopper")).toEqual({
      userId: "socket-shopper",
      balance: 5000,
      currency: expect.any(String),
    });
  });

  it("polls the operation's GET route when its socket is refused", async () => {
    const refused = refusedWebSocket();
    const recorder = recordingFetch();
    const options = { WebSocket: refused.WebSocket, fetch: recorder.fetch, pollIntervalMs: 100 };
    await shopServer(options).deposit({ userId: "behind-a-proxy", amount: 900 }).result(RESULT_WAIT);
    const payment = shopper("behind-a-proxy", options).pay({ amount: 400 });
    const final = await payment.result(RESULT_WAIT);
    expect(final).toMatchObject({ id: payment.id, amount: 400, status: "succeeded" });
    // Three refused attempts per operation, then polling.
    expect(refused.attempts()).toBe(6);
    const polls = recorder.to("GET", new RegExp(`^/v1/payments/${payment.id}$`));
    expect(polls.length).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(polls.at(-1)!.body)).toEqual(final);
  });

  it("ends placeOrder when the order awaits payment, and cancelOrder when it is cancelled", async () => {
    const checkout = shopper("orderer");
    const productId = await createProduct(intake.baseUrl, 700, 5);
    expect(await checkout.product(productId)).toMatchObject({ id: productId, price: 700, available: 5 });
    await shopServer().deposit({ userId: "orderer", amount: 2000 }).result(RESULT_WAIT);

    const order = await checkout.placeOrder({ items: [{ productId, quantity: 2 }] }).result(RESULT_WAIT);
    expect(order).toMatchObject({
      status: "awaiting_payment",
      amount: 1400,
      items: [{ productId, quantity: 2 }],
    });
    expect((await checkout.product(productId)).available).toBe(3);
    const payment = await checkout.pay({ amount: order.amount, orderId: order.id }).result(RESULT_WAIT);
    expect(payment).toMatchObject({ status: "succeeded", orderId: order.id });

    const second = await checkout.placeOrder({ items: [{ productId, quantity: 1 }] }).result(RESULT_WAIT);
    expect((await checkout.product(productId)).available).toBe(2);
    const cancel = checkout.cancelOrder(second.id);
    const cancelled = await cancel.result(RESULT_WAIT);
    expect(cancel.id).toBe(second.id);
    expect(cancelled).toMatchObject({ id: second.id, status: "cancelled" });
    await eventually(
      async () => (await checkout.product(productId)).available === 3,
      "the cancelled unit back in stock",
    );
    expect(await checkout.wallet("orderer")).toMatchObject({ balance: 600 });
  });
});

describe("refusals", () => {
  it("are typed errors carrying the problem, asked for once", async () => {
    const recorder = recordingFetch();
    const checkout = shopServer({ fetch: recorder.fetch });
    const productId = await createProduct(intake.baseUrl, 100, 1);

    const order = checkout.placeOrder({ userId: "too-many", items: [{ productId, quantity: 2 }] });
    const outOfStock = await refusal(order.result());
    expect(outOfStock).toBeInstanceOf(OutOfStockError);
    expect(outOfStock).toMatchObject({
      name: "OutOfStockError",
      status: 409,
      code: "out_of_stock",
      lines: [{ line: 1, productId, requested: 2, available: 1 }],
      problem: { status: 409, code: "out_of_stock", retryable: false },
    });
    expect(order.id).toBeUndefined();
    expect(order.status()).toBe("refused");

    const badUser = await refusal(checkout.pay({ userId: "not a user id", amount: 10 }).result());
    expect(badUser).toBeInstanceOf(ValidationError);
    expect(badUser).toMatchObject({ status: 400, code: "validation_error", field: "userId" });
    const badAmount = await refusal(checkout.deposit({ userId: "shopper", amount: 1.5 }).result());
    expect(badAmount).toMatchObject({ name: "ValidationError", field: "amount" });
    // A server key names the user: without one there is no user to act for.
    const noUser = await refusal(checkout.pay({ amount: 10 }).result());
    expect(noUser).toMatchObject({ name: "ValidationError", status: 400, field: "userId" });
    // A refusal is answered the same way every time: never retried.
    expect(recorder.calls.map((call) => call.status)).toEqual([409, 400, 400, 400]);
  });

  it("refuses a shopper acting as someone else, or depositing, with a PermissionError, asked once", async () => {
    const recorder = recordingFetch();
    const checkout = shopper("honest", { fetch: recorder.fetch });
    const asOther = await refusal(checkout.pay({ userId: "someone-else", amount: 10 }).result());
    expect(asOther).toBeInstanceOf(PermissionError);
    expect(asOther).toMatchObject({ name: "PermissionError", status: 403, code: "forbidden_user" });
    // A browser must never mint balance, not even into its own wallet.
    const minting = await refusal(checkout.deposit({ userId: "honest", amount: 10 }).result());
    expect(minting).toBeInstanceOf(PermissionError);
    expect(minting).toMatchObject({ status: 403, code: "forbidden_caller" });
    expect(minting).toBeInstanceOf(FloodgateError);
    expect(recorder.calls.map((call) => `${call.method} ${call.status}`)).toEqual(["POST 403", "POST 403"]);
  });

  it("claims a coupon once per user until it is sold out", async () => {
    const earlyBird = shopper("early-bird");
    const couponId = await createCoupon(intake.baseUrl, 1);
    const first = await earlyBird.claimCoupon(couponId).result(RESULT_WAIT);
    expect(first).toMatchObject({
      id: expect.stringMatching(/^cis_/),
      couponId,
      userId: "early-bird",
      status: "succeeded",
    });

    const again = await refusal(earlyBird.claimCoupon(couponId, { userId: "early-bird" }).result());
    expect(again).toBeInstanceOf(AlreadyIssuedError);
    expect(again).toMatchObject({ status: 409, code: "already_issued", existingId: first.id });
    const late = await refusal(shopper("late-comer").claimCoupon(couponId).result());
    expect(late).toBeInstanceOf(SoldOutError);
    expect(late).toMatchObject({ status: 410, code: "sold_out" });
    expect(late).toBeInstanceOf(FloodgateError);
  });

  it("rejects a payment the wallet cannot cover with InsufficientFundsError once it failed", async () => {
    const payment = shopper("empty-wallet").pay({ amount: 100 });
    const error = await refusal(payment.result(RESULT_WAIT));
    expect(error).toBeInstanceOf(InsufficientFundsError);
    expect(error).toMatchObject({
      code: "insufficient_funds",
      status: undefined,
      problem: { operation: { id: payment.id, status: "failed", failureReason: "insufficient_funds" } },
    });
    expect(payment.status()).toBe("failed");
  });

  it("rejects the read of an unknown product with not_found and a malformed id with a ValidationError", async () => {
    // The public catalogue: no token needed.
    const checkout = createCheckout({ baseUrl: intake.baseUrl });
    const missing = await refusal(checkout.product("prd_00000000000000000000000000"));
    expect(missing).toMatchObject({ name: "FloodgateError", status: 404, code: "not_found" });
    const malformed = await refusal(checkout.product("not-a-product"));
    expect(malformed).toBeInstanceOf(ValidationError);
    expect(malformed).toMatchObject({ status: 400, field: "productId" });
  });
});
