// The demo store in real headless Chromium, served by a real intake process at /demo/ with real workers behind
// it (DEMO_LOGIN on, as ./floodgate start --demo sets it): each page signs in as its shopper, and the wallet
// is funded through the demo's server-side deposit. A purchase with the room closed, one in a room selling the
// product (the units left, then the sold-out moment), one behind a queue of 200, one whose payment answer the
// network loses, and a refusal. Each test has its own product, room and shopper; the shards are read directly to
// count what the server recorded.
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import {
  createTestEnvironment,
  type IntakeProcess,
  startIntakeProcess,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import { chromiumPath, launchChromium } from "@floodgate/test-fixtures/headless-chromium";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type DemoPage, openDemoPage } from "./support/demo-page.ts";
import { ShardRecords } from "./support/shard-records.ts";
import { ADMIN_API_KEY, buyThroughRoom, createProduct, joinAhead, putRoom } from "./support/store-admin.ts";

// Looked up as the file loads: without a browser the file fails outright, with no test reported as skipped.
const executablePath = chromiumPath();
/** Git-ignored; CI keeps the folder as the run's artifacts. */
const ARTIFACTS = fileURLToPath(new URL("../../../test-artifacts/", import.meta.url));
const PRICE = 30_000;

let env: TestEnvironment;
let intake: IntakeProcess;
let workers: WorkerProcess[] = [];
let browser: Browser;
let shards: ShardRecords;
let demo: DemoPage | undefined;

beforeAll(async () => {
  env = await createTestEnvironment("demo-store-browser", {
    env: { ADMIN_API_KEY, DEMO_LOGIN: "on", HOST: "127.0.0.1" },
  });
  [intake, ...workers] = await Promise.all([
    startIntakeProcess(env.config),
    startWorkerProcess(env.config),
    startWorkerProcess(env.config),
  ]);
  browser = await launchChromium(executablePath);
  shards = new ShardRecords(env.config.shardUrls);
});

afterEach(async () => {
  if (demo) expect(demo.pageErrors, "uncaught errors in the page").toEqual([]);
  await demo?.close();
  demo = undefined;
});

afterAll(async () => {
  await browser?.close();
  await Promise.all(workers.map((worker) => worker.stop()));
  await intake?.kill();
  await shards?.close();
  await env?.cleanup();
});

/** What the intake and the workers logged (warnings and errors at this LOG_LEVEL), for a failed purchase's message. */
const serverLogs = () =>
  [intake, ...workers]
    .map((p, i) => `--- ${i === 0 ? "intake" : `worker ${i}`}:\n${p.output().slice(-4000)}`)
    .join("\n");

const newProduct = (name: string, stock: number) =>
  createProduct(intake.baseUrl, { name, price: PRICE, stock });

describe("the demo store in Chromium", () => {
  it("signed in, funds the wallet server-side and buys at once: paid, and the stock on the page drops by one", async () => {
    const product = await newProduct("Room-off sneaker", 5);
    demo = await openDemoPage(browser, intake.baseUrl, { product, room: "closed", shopper: "shopper-off" });
    expect(await demo.stock()).toBe(5);

    expect(await demo.buy()).toEqual({ outcome: "paid", text: expect.stringMatching(/^Paid\. Order ord_/) });
    // The wallet started empty: the page deposited the price before paying; no room queued the shopper.
    expect(await demo.stepStates()).toEqual({
      queue: "skipped",
      order: "done",
      deposit: "done",
      payment: "done",
    });
    await demo.stockToRead(4);

    const records = await shards.forShopper("shopper-off");
    expect(records.orders).toEqual([{ id: expect.any(String), status: "paid", amount: PRICE }]);
    expect(records.payments).toEqual([
      { id: expect.any(String), status: "succeeded", amount: PRICE, orderId: records.orders[0]!.id },
    ]);
    expect(records.deposits).toEqual([{ id: expect.any(String), status: "succeeded", amount: PRICE }]);

    // The browser never held a server key: it signed in, funded through the demo's deposit, and every API call
    // carried the shopper's own customer token.
    const calls = demo.apiRequests;
    expect(calls.filter((call) => call.path === "/demo/login").map((call) => call.authorization)).toEqual([
      undefined,
    ]);
    expect(calls.filter((call) => call.method === "POST").map((call) => call.path)).toEqual([
      "/demo/login",
      "/v1/orders",
      "/demo/deposits",
      "/v1/payments",
    ]);
    // (The stock is read from the public catalogue, with no token at all.)
    const signedIn = calls.filter(
      (call) => call.path !== "/demo/login" && !call.path.startsWith("/v1/catalog/"),
    );
    const bearers = new Set(signedIn.map((call) => call.authorization));
    expect(bearers.size).toBe(1);
    const [bearer] = bearers;
    expect(bearer).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(bearer).not.toContain("fg_sk_");
  });

  it("in a room selling the product, shows how many are left while the shopper waits", async () => {
    const product = await newProduct("Numbered print", 4);
    const room = "print-drop";
    // Not open yet: the shopper waits in the pre-queue until the test opens the room.
    const closedUntil = new Date(Date.now() + 600_000).toISOString();
    await putRoom(intake.baseUrl, room, {
      mode: "on",
      admitPerSecond: 5,
      products: [product],
      startsAt: closedUntil,
    });
    try {
      demo = await openDemoPage(browser, intake.baseUrl, { product, room, shopper: "shopper-print" });
      await demo.recordQueue();
      await demo.pressBuy();
      await demo.page.waitForSelector("#queue[data-units-left]", { timeout: 30_000 });
      expect(await demo.page.getAttribute("#queue", "data-units-left")).toBe("4");
      expect(await demo.page.textContent("#queue")).toMatch(
        /^You are number 1 in line\. Estimated wait: .+\. 4 left\.$/,
      );

      await putRoom(intake.baseUrl, room, {
        mode: "on",
        admitPerSecond: 5,
        products: [product],
        startsAt: null,
      });
      expect({ ...(await demo.outcome()), steps: await demo.stepStates() }, serverLogs()).toEqual({
        outcome: "paid",
        text: expect.stringMatching(/^Paid\. Order ord_/),
        steps: { queue: "done", order: "done", deposit: "done", payment: "done" },
      });
    } finally {
      await putRoom(intake.baseUrl, room, { mode: "off", admitPerSecond: 5, products: [product] });
    }
  });

  it("tells the shopper waiting for the last unit the moment it is sold", async () => {
    const product = await newProduct("Last signed vinyl", 1);
    const room = "vinyl-drop";
    await putRoom(intake.baseUrl, room, { mode: "on", admitPerSecond: 5, products: [product] });
    try {
      // Someone else is admitted for the only unit: the page's shopper waits behind them, told 1 left, and is
      // told sold out once that shopper has paid (not merely reserved: an unpaid unit could still come back).
      await buyThroughRoom(
        intake.baseUrl,
        env.serverKey,
        { roomId: room, productId: product, price: PRICE, quantity: 1, userId: "vinyl-first" },
        async () => {
          demo = await openDemoPage(browser, intake.baseUrl, { product, room, shopper: "shopper-vinyl" });
          await demo.pressBuy();
          await demo.page.waitForSelector("#queue[data-units-left]", { timeout: 30_000 });
          expect(await demo.page.textContent("#queue")).toMatch(/^You are number 1 in line\..* 1 left\.$/);
        },
      );
      expect({ ...(await demo!.outcome()), steps: await demo!.stepStates() }, serverLogs()).toEqual({
        outcome: "refused",
        text: "Sold out. The last unit of this drop is gone: the queue is closed.",
        steps: { queue: "failed", order: "failed", deposit: "idle", payment: "idle" },
      });
      const records = await shards.forShopper("shopper-vinyl");
      expect(records.orders).toEqual([]);
    } finally {
      await putRoom(intake.baseUrl, room, { mode: "off", admitPerSecond: 5, products: [product] });
    }
  });

  it("behind 200 queued shoppers, shows its place falling live, is admitted, and pays once", async () => {
    const product = await newProduct("Flash-sale sneaker", 50);
    const room = "flash";
    const guards = ["orders", "payments"];
    // Nearly shut while the crowd joins and the page takes its place behind it, however slow this machine is.
    await putRoom(intake.baseUrl, room, { mode: "on", admitPerSecond: 1, guards });
    try {
      await joinAhead(
        intake.baseUrl,
        env.serverKey,
        room,
        Array.from({ length: 200 }, (_, i) => `crowd-${i}`),
      );
      demo = await openDemoPage(browser, intake.baseUrl, { product, room, shopper: "shopper-queued" });
      expect(await demo.page.getAttribute("#queue", "aria-live")).toBe("polite");
      await demo.recordQueue();
      await demo.pressBuy();
      await demo.page.waitForSelector("#queue[data-position]", { timeout: 30_000 });
      // Then a slow flash-sale pace: 40 a second, several of the room's once-a-second place pushes.
      await putRoom(intake.baseUrl, room, { mode: "on", admitPerSecond: 40, guards });

      // The whole outcome, so a failure shows the words the shopper saw and not only "refused".
      expect({ ...(await demo.outcome()), steps: await demo.stepStates() }, serverLogs()).toEqual({
        outcome: "paid",
        text: expect.stringMatching(/^Paid\. Order ord_/),
        steps: { queue: "done", order: "done", deposit: "done", payment: "done" },
      });

      // Places as the page showed them, repeats dropped: several, each lower than the last, then admitted (0).
      const shown = (await demo.recordedQueue()).filter(
        (line, i, all) => line.position !== all[i - 1]?.position,
      );
      expect(shown.at(-1)).toEqual({ position: 0, text: "It is your turn: you are in." });
      const places = shown.slice(0, -1);
      expect(places.length).toBeGreaterThanOrEqual(2);
      expect(places[0]!.position).toBeGreaterThan(100);
      for (let i = 1; i < places.length; i++)
        expect(places[i]!.position).toBeLessThan(places[i - 1]!.position);
      for (const { position, text } of places) {
        expect(text).toMatch(new RegExp(`^You are number ${position} in line\\. Estimated wait: .+\\.$`));
      }

      // The test artifact: the page's final state after the queue (test-artifacts/ at the repo root).
      await mkdir(ARTIFACTS, { recursive: true });
      await demo.page.screenshot({ path: `${ARTIFACTS}demo-room-admitted.png`, fullPage: true });

      // Refused while queued, resubmitted once admitted: still exactly one order and one payment.
      const records = await shards.forShopper("shopper-queued");
      expect(records.orders).toEqual([{ id: expect.any(String), status: "paid", amount: PRICE }]);
      expect(records.payments).toEqual([
        { id: expect.any(String), status: "succeeded", amount: PRICE, orderId: records.orders[0]!.id },
      ]);
    } finally {
      // The next tests buy without a room: no other room may guard orders while this one is on.
      await putRoom(intake.baseUrl, room, {
        mode: "off",
        admitPerSecond: 40,
        guards: ["orders", "payments"],
      });
    }
  });

  it("pays once when the network loses the payment's answer: the retry carries the same key", async () => {
    const product = await newProduct("Flaky-network sneaker", 5);
    demo = await openDemoPage(browser, intake.baseUrl, { product, room: "closed", shopper: "shopper-flaky" });
    const attempts: { key: string | undefined; reachedServer: number | null }[] = [];
    await demo.page.route("**/v1/payments", async (route) => {
      const request = route.request();
      if (request.method() !== "POST") return route.continue();
      const key = request.headers()["idempotency-key"];
      if (attempts.length > 0) {
        attempts.push({ key, reachedServer: null });
        return route.continue();
      }
      // The server takes the payment; the page never hears back.
      const answer = await route.fetch();
      attempts.push({ key, reachedServer: answer.status() });
      return route.abort("failed");
    });

    // The whole outcome, so a failure shows the words the shopper saw and not only "refused".
    expect({ ...(await demo.buy()), steps: await demo.stepStates() }, serverLogs()).toEqual({
      outcome: "paid",
      text: expect.stringMatching(/^Paid\. Order ord_/),
      steps: { queue: "skipped", order: "done", deposit: "done", payment: "done" },
    });

    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(attempts[0]).toEqual({ key: expect.stringMatching(/\S/), reachedServer: 202 });
    expect(new Set(attempts.map((attempt) => attempt.key))).toEqual(new Set([attempts[0]!.key]));
    const records = await shards.forShopper("shopper-flaky");
    expect(records.orders).toEqual([{ id: expect.any(String), status: "paid", amount: PRICE }]);
    expect(records.payments).toEqual([
      { id: expect.any(String), status: "succeeded", amount: PRICE, orderId: records.orders[0]!.id },
    ]);
  });

  it("shows a refusal as a clear message: sold out, no step left in progress", async () => {
    const product = await newProduct("Sold-out sneaker", 0);
    demo = await openDemoPage(browser, intake.baseUrl, { product, room: "closed", shopper: "shopper-late" });
    expect(await demo.stock()).toBe(0);

    const result = await demo.buy();
    expect(result).toEqual({ outcome: "refused", text: expect.stringMatching(/^Sold out\./) });
    expect(await demo.stepStates()).toEqual({
      queue: "skipped",
      order: "failed",
      deposit: "idle",
      payment: "idle",
    });
    expect(await demo.page.isEnabled("#buy")).toBe(true);
    expect(await shards.forShopper("shopper-late")).toEqual({ orders: [], payments: [], deposits: [] });
  });
});

describe("a newcomer in Chromium", () => {
  it("runs a flash sale from the admin strip alone: product, room, crowd, purchase, restock, close", async () => {
    demo = await openDemoPage(browser, intake.baseUrl, { room: "newcomer", shopper: "newcomer" });
    const { page } = demo;
    expect(await page.textContent("#product-name")).toBe("No product yet");
    expect(await page.isDisabled("#buy")).toBe(true);
    const adminSays = async (button: string, words: RegExp) => {
      await page.click(button);
      await page.waitForFunction(
        (pattern) => new RegExp(pattern).test(document.querySelector("#admin-status")?.textContent ?? ""),
        words.source,
        { timeout: 15_000 },
      );
    };

    await page.fill("#admin-key", ADMIN_API_KEY);
    await adminSays("#setup-product", /^Product prd_\w+ created with 10 in stock\.$/);
    await demo.stockToRead(10);
    const productId = new URL(page.url()).searchParams.get("product");
    expect(productId).toMatch(/^prd_/);

    await page.fill("#admit-rate", "5");
    await adminSays("#open-room", /^Room newcomer open: orders and payments queue, 5 admitted per second\.$/);
    await adminSays("#crowd", /^40 shoppers joined the queue of room newcomer/);
    await demo.recordQueue();
    expect((await demo.buy()).outcome).toBe("paid");
    const places = (await demo.recordedQueue()).map((line) => line.position);
    expect(places.some((position) => position > 1)).toBe(true);
    expect(places.at(-1)).toBe(0);
    await demo.stockToRead(9);

    await adminSays("#restock", /^Restocked: 19 available now\.$/);
    await demo.stockToRead(19);
    await adminSays("#close-room", /^Room newcomer closed/);
    await page.waitForFunction(() =>
      document.querySelector("#room-summary")?.textContent?.startsWith("closed"),
    );

    // The product is remembered: the bare /demo link opens on it again.
    await page.goto(`${intake.baseUrl}/demo`);
    await page.waitForSelector("body[data-ready=true]");
    // The note is written with the stock figure once the product's first read answers, not at data-ready.
    await demo.stockToRead(19);
    expect(await page.textContent("#product-note")).toBe(`Product ${productId}`);
  });
});
