// The checkout page in real headless Chromium, on a shop origin of its own, against a real intake and worker,
// with the SDK's minified bundle: one pay() meets a waiting room, the SDK joins the room the problem names,
// the page shows the live place from the ticket's WebSocket, and the SDK resubmits the payment with the same
// Idempotency-Key and the admission token, then hears its final status over the operation's WebSocket. The page
// is signed in as a shopper: its getToken() asks the shop's server, which mints the customer token with its
// server key; every call and both sockets carry that token.
import {
  createTestEnvironment,
  type IntakeProcess,
  startIntakeProcess,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import { chromiumPath, launchChromium } from "@floodgate/test-fixtures/headless-chromium";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AdmittedEvent,
  createCheckout,
  type MoneyOperationView,
  type PositionEvent,
} from "../src/index.ts";
import { eventually } from "./support/eventually.ts";
import { ADMIN_API_KEY, joinAhead, putRoom } from "./support/room-admin.ts";
import { type ShopPageServer, startShopPageServer } from "./support/shop-page-server.ts";

/** What shop-page.html puts on window. */
interface ShopWindow {
  shopReady?: boolean;
  checkout(amount: number): Promise<void>;
  checkoutLog: {
    idempotencyKey: string;
    positions: PositionEvent[];
    admitted: AdmittedEvent[];
    statuses: string[];
    payment: MoneyOperationView | null;
    error: string | null;
  };
}

// Looked up as the file loads: without a browser the file fails outright, with no test reported as skipped.
const executablePath = chromiumPath();
let shop: ShopPageServer;
let env: TestEnvironment;
let intake: IntakeProcess;
let worker: WorkerProcess;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
const socketUrls: string[] = [];
const socketFrames: string[] = [];
const requests: { method: string; url: string }[] = [];
const paymentAnswers: number[] = [];
const paymentHeaders: Record<string, string>[] = [];
const apiAuthorizations: string[] = [];

beforeAll(async () => {
  // The page's origin must be known before the intake starts: its CORS_ORIGINS lists it.
  shop = await startShopPageServer();
  env = await createTestEnvironment("checkout-sdk-browser", {
    env: { ADMIN_API_KEY, CORS_ORIGINS: shop.origin },
  });
  [intake, worker] = await Promise.all([startIntakeProcess(env.config), startWorkerProcess(env.config)]);
  shop.useFloodgate(intake.baseUrl, env.serverKey);
  browser = await launchChromium(executablePath);
  page = await browser.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") pageErrors.push(message.text());
  });
  page.on("websocket", (socket) => {
    socketUrls.push(socket.url());
    socket.on("framereceived", (frame) => socketFrames.push(String(frame.payload)));
  });
  page.on("request", (request) => {
    requests.push({ method: request.method(), url: request.url() });
    if (request.url().startsWith(`${intake.baseUrl}/v1/`) && request.method() !== "OPTIONS")
      apiAuthorizations.push(request.headers().authorization ?? "");
    if (request.method() === "POST" && request.url().endsWith("/v1/payments"))
      paymentHeaders.push(request.headers());
  });
  page.on("response", (response) => {
    if (response.request().method() === "POST" && response.url().endsWith("/v1/payments"))
      paymentAnswers.push(response.status());
  });
  await page.goto(`${shop.origin}/?api=${encodeURIComponent(intake.baseUrl)}&shopper=browser-shopper`);
  await page
    .waitForFunction(() => (window as unknown as ShopWindow).shopReady === true, null, { timeout: 15_000 })
    .catch((error: Error) => {
      throw new Error(`the shop page did not load the SDK (${error.message}); page errors: ${pageErrors}`);
    });
});

afterAll(async () => {
  await page?.close();
  await browser?.close();
  await worker?.stop();
  await intake?.kill();
  await shop?.close();
  await env?.cleanup();
});

describe("the checkout page in Chromium", () => {
  it("waits its turn with live places over a WebSocket, then pays once with the same key and the token", async () => {
    // The shop's server funds the shopper's wallet with its key.
    await createCheckout({ baseUrl: intake.baseUrl, getToken: () => env.serverKey })
      .deposit({ userId: "browser-shopper", amount: 5000 })
      .result({ timeoutMs: 30_000 });
    // Nearly shut while the crowd joins and the page takes its place behind it, however slow this machine is.
    await putRoom(intake.baseUrl, "flash-sale", { admitPerSecond: 1, guards: ["payments"] });
    await joinAhead(
      intake.baseUrl,
      env.serverKey,
      "flash-sale",
      Array.from({ length: 60 }, (_, i) => `crowd-${i}`),
    );

    await page.evaluate(() => {
      void (window as unknown as ShopWindow).checkout(1500);
    });
    await page.waitForFunction(() => document.querySelector("#position")?.textContent !== "-", null, {
      timeout: 15_000,
    });
    // The ticket's socket is open and has told the page its place: only then does the line move quickly.
    await eventually(
      () => socketFrames.some((frame) => JSON.parse(frame).type === "position"),
      "position frame on the ticket's socket",
    );
    await putRoom(intake.baseUrl, "flash-sale", { admitPerSecond: 20, guards: ["payments"] });
    await page.waitForFunction(() => /\S/.test(document.querySelector("#result")?.textContent ?? ""), null, {
      timeout: 40_000,
    });
    const log = await page.evaluate(() => (window as unknown as ShopWindow).checkoutLog);
    expect(log.error, `page errors: ${pageErrors}`).toBeNull();

    expect(log.positions.length).toBeGreaterThanOrEqual(1);
    for (let i = 1; i < log.positions.length; i++) {
      expect(log.positions[i]!.position).toBeLessThan(log.positions[i - 1]!.position);
    }
    expect(log.positions.every((event) => event.roomId === "flash-sale")).toBe(true);
    expect(log.admitted).toEqual([{ roomId: "flash-sale", expiresAt: expect.any(String) }]);

    const payment = log.payment!;
    expect(payment).toMatchObject({
      id: expect.stringMatching(/^pay_/),
      userId: "browser-shopper",
      amount: 1500,
    });
    expect(payment.status).toBe("succeeded");
    expect(log.statuses.at(-1)).toBe("succeeded");
    expect(await page.textContent("#result")).toBe(`${payment.id} succeeded`);
    // Refused once without a token, accepted once with it: the same key both times.
    expect(paymentAnswers).toEqual([403, 202]);
    expect(paymentHeaders.map((headers) => headers["idempotency-key"])).toEqual([
      log.idempotencyKey,
      log.idempotencyKey,
    ]);
    expect(paymentHeaders[0]!["admission-token"]).toBeUndefined();
    expect(paymentHeaders[1]!["admission-token"]).toBeTruthy();

    // One token, asked of the shop's server once, on every API call the page made.
    expect(shop.minted).toEqual([{ shopper: "browser-shopper", token: expect.any(String) }]);
    const token = shop.minted[0]!.token;
    expect(apiAuthorizations.length).toBeGreaterThanOrEqual(3);
    expect(new Set(apiAuthorizations)).toEqual(new Set([`Bearer ${token}`]));

    // The place came through the ticket's WebSocket and the status through the operation's, each opened with
    // the token as access_token (a browser cannot set headers on a WebSocket); nothing polled.
    expect(socketUrls).toEqual([
      expect.stringMatching(
        /^ws:\/\/127\.0\.0\.1:\d+\/v1\/rooms\/flash-sale\/tickets\/tkt_\w+\/ws\?access_token=[\w.-]+$/,
      ),
      `ws://127.0.0.1:${intake.port}/v1/operations/${payment.id}/ws?access_token=${token}`,
    ]);
    expect(socketUrls.map((url) => new URL(url).searchParams.get("access_token"))).toEqual([token, token]);
    const frameTypes = socketFrames.map((frame) => JSON.parse(frame).type);
    expect(frameTypes).toContain("position");
    expect(frameTypes).toContain("admitted");
    expect(frameTypes.at(-1)).toBe("status");
    const polls = requests.filter((request) => request.method === "GET" && /\/v1\//.test(request.url));
    expect(polls).toEqual([]);
  });
});
