// The checkout page in real headless Chromium, on a shop origin of its own, against a real intake: the payment
// meets a waiting room, the page joins the room the problem names, shows its live place from the ticket's
// WebSocket, and pays with the admission token once admitted.
import {
  createTestEnvironment,
  type IntakeProcess,
  startIntakeProcess,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AcceptedOperation, AdmissionUpdate } from "../src/index.ts";
import { chromiumPath } from "./support/chromium-path.ts";
import { ADMIN_API_KEY, joinAhead, putRoom } from "./support/room-admin.ts";
import { type ShopPageServer, startShopPageServer } from "./support/shop-page-server.ts";

/** What shop-page.html puts on window. */
interface ShopWindow {
  shopReady?: boolean;
  checkout(userId: string, amount: number): Promise<void>;
  checkoutLog: {
    problems: { code: string; roomId: string; joinUrl: string }[];
    updates: AdmissionUpdate[];
    payment: AcceptedOperation | null;
    error: string | null;
  };
}

// Looked up as the file loads: without a browser the file fails outright, with no test reported as skipped.
const executablePath = chromiumPath();
let shop: ShopPageServer;
let env: TestEnvironment;
let intake: IntakeProcess;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
const socketUrls: string[] = [];
const socketFrames: string[] = [];
const requests: { method: string; url: string }[] = [];
const paymentAnswers: number[] = [];

beforeAll(async () => {
  // The page's origin must be known before the intake starts: its CORS_ORIGINS lists it.
  shop = await startShopPageServer();
  env = await createTestEnvironment("checkout-sdk-browser", {
    env: { ADMIN_API_KEY, CORS_ORIGINS: shop.origin },
  });
  intake = await startIntakeProcess(env.config);
  browser = await chromium.launch({
    executablePath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  page = await browser.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") pageErrors.push(message.text());
  });
  page.on("websocket", (socket) => {
    socketUrls.push(socket.url());
    socket.on("framereceived", (frame) => socketFrames.push(String(frame.payload)));
  });
  page.on("request", (request) => requests.push({ method: request.method(), url: request.url() }));
  page.on("response", (response) => {
    if (response.request().method() === "POST" && response.url().endsWith("/v1/payments"))
      paymentAnswers.push(response.status());
  });
  await page.goto(`${shop.origin}/?api=${encodeURIComponent(intake.baseUrl)}`);
  await page
    .waitForFunction(() => (window as unknown as ShopWindow).shopReady === true, null, { timeout: 15_000 })
    .catch((error: Error) => {
      throw new Error(`the shop page did not load the SDK (${error.message}); page errors: ${pageErrors}`);
    });
});

afterAll(async () => {
  await page?.close();
  await browser?.close();
  await intake?.kill();
  await shop?.close();
  await env?.cleanup();
});

describe("the checkout page in Chromium", () => {
  it("waits its turn with live positions over a WebSocket, then pays with the admission token", async () => {
    await putRoom(intake.baseUrl, "flash-sale", { admitPerSecond: 2, guards: ["payments"] });
    await joinAhead(
      intake.baseUrl,
      "flash-sale",
      Array.from({ length: 6 }, (_, i) => `crowd-${i}`),
    );

    await page.evaluate(() => {
      void (window as unknown as ShopWindow).checkout("browser-shopper", 1500);
    });
    await page.waitForFunction(() => document.querySelector("#position")?.textContent !== "-", null, {
      timeout: 15_000,
    });
    await page.waitForFunction(() => /\S/.test(document.querySelector("#result")?.textContent ?? ""), null, {
      timeout: 30_000,
    });
    const log = await page.evaluate(() => (window as unknown as ShopWindow).checkoutLog);
    expect(log.error, `page errors: ${pageErrors}`).toBeNull();

    expect(log.problems).toEqual([
      { code: "waiting_room_required", roomId: "flash-sale", joinUrl: "/v1/rooms/flash-sale/tickets" },
    ]);
    const positions = log.updates.flatMap((update) => (update.type === "position" ? [update] : []));
    expect(positions.length).toBeGreaterThanOrEqual(1);
    expect(positions.every((update) => update.via === "websocket")).toBe(true);
    for (let i = 1; i < positions.length; i++) {
      expect(positions[i]!.position).toBeLessThanOrEqual(positions[i - 1]!.position);
    }
    expect(log.updates.at(-1)).toMatchObject({ type: "admitted", roomId: "flash-sale", via: "websocket" });

    const payment = log.payment!;
    expect(payment.id).toMatch(/^pay_/);
    expect(await page.textContent("#result")).toBe(`${payment.id} pending`);
    expect(paymentAnswers).toEqual([403, 202]);
    const stored = await fetch(`${intake.baseUrl}/v1/payments/${payment.id}`);
    expect(stored.status).toBe(200);
    expect(await stored.json()).toMatchObject({ id: payment.id, userId: "browser-shopper", amount: 1500 });

    // The place came through the ticket's WebSocket: its frames carried positions, and the page never polled.
    expect(socketUrls).toEqual([
      expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/v1\/rooms\/flash-sale\/tickets\/tkt_\w+\/ws$/),
    ]);
    expect(socketFrames.some((frame) => JSON.parse(frame).type === "position")).toBe(true);
    const polls = requests.filter(
      (request) => request.method === "GET" && /\/v1\/rooms\/[^/]+\/tickets\/[^/]+$/.test(request.url),
    );
    expect(polls).toEqual([]);
  });
});
