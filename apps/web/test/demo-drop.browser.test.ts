// The demo store's product page behind its room, through @floodgate/node's gate as the intake's demo runs it, in
// real headless Chromium against a real intake process (DEMO_LOGIN on) and a worker. While the link's room
// queues, /demo/drop sends the shopper to the room page (/demo/queue.html), which queues on load with the SDK's
// joinRoom and shows the place; a reload keeps the ticket and the place; once the room admits, the gate's route
// sets its cookie and the store page opens, where the shopper buys the unit. With the room off, the page opens
// at once.
import {
  createTestEnvironment,
  type IntakeProcess,
  startIntakeProcess,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import { chromiumPath, launchChromium } from "@floodgate/test-fixtures/headless-chromium";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_API_KEY, createProduct, joinAhead, putRoom } from "./support/store-admin.ts";

// Looked up as the file loads: without a browser the file fails outright, with no test reported as skipped.
const executablePath = chromiumPath();
const PRICE = 12_000;

let env: TestEnvironment;
let intake: IntakeProcess;
let worker: WorkerProcess;
let browser: Browser;
let context: BrowserContext | undefined;

beforeAll(async () => {
  env = await createTestEnvironment("demo-drop-browser", {
    env: { ADMIN_API_KEY, DEMO_LOGIN: "on", HOST: "127.0.0.1" },
  });
  [intake, worker] = await Promise.all([startIntakeProcess(env.config), startWorkerProcess(env.config)]);
  browser = await launchChromium(executablePath);
});

afterEach(async () => {
  await context?.close();
  context = undefined;
});

afterAll(async () => {
  await browser?.close();
  await worker?.stop();
  await intake?.kill();
  await env?.cleanup();
});

const later = () => new Date(Date.now() + 600_000).toISOString();
const now = () => new Date().toISOString();

/** A new tab on its own cookies and storage, recording its uncaught errors, its joins and its documents. */
async function openTab() {
  context = await browser.newContext();
  const page = await context.newPage();
  const seen = { errors: [] as string[], joins: 0, documents: [] as string[] };
  page.on("pageerror", (error) => seen.errors.push(error.message));
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (request.method() === "POST" && /^\/v1\/rooms\/[\w-]+\/tickets$/.test(url.pathname)) seen.joins++;
    if (request.resourceType() === "document") seen.documents.push(url.pathname);
  });
  return { page, seen };
}

async function shownPlace(page: Page): Promise<number> {
  await page.waitForFunction(
    () => /^\d+$/.test(document.querySelector("#position")?.textContent ?? ""),
    null,
    {
      timeout: 15_000,
    },
  );
  return Number(await page.textContent("#position"));
}

describe("the demo's product page behind its room", () => {
  it("queues on the room page, keeps the place across a reload, then opens the store, where the shopper buys", async () => {
    const room = "drop-gate";
    const product = await createProduct(intake.baseUrl, { name: "Gated jacket", price: PRICE, stock: 3 });
    await putRoom(intake.baseUrl, room, {
      mode: "on",
      admitPerSecond: 20,
      products: [product],
      startsAt: later(),
    });
    await joinAhead(intake.baseUrl, env.serverKey, room, ["drop-ahead-1", "drop-ahead-2"]);
    const { page, seen } = await openTab();
    const link = `/demo/drop?product=${product}&room=${room}&shopper=drop-fan`;

    await page.goto(`${intake.baseUrl}${link}`);
    const queue = new URL(page.url());
    expect(queue.pathname).toBe("/demo/queue.html");
    expect(queue.searchParams.get("return")).toBe(link);
    expect(await shownPlace(page)).toBe(3);
    expect(await page.textContent("#shopper")).toBe("drop-fan");
    await page.reload();
    expect(await shownPlace(page)).toBe(3);
    expect(seen.joins).toBe(1);

    await putRoom(intake.baseUrl, room, {
      mode: "on",
      admitPerSecond: 20,
      products: [product],
      startsAt: now(),
    });
    await page.waitForURL(`${intake.baseUrl}${link}`, { timeout: 30_000 });
    await page.waitForSelector("body[data-ready=true]");
    expect(seen.documents).toEqual([
      "/demo/drop",
      "/demo/queue.html",
      "/demo/queue.html",
      `/demo/rooms/${room}/admit`,
      "/demo/drop",
    ]);
    const cookies = await context!.cookies(intake.baseUrl);
    expect(cookies.find((cookie) => cookie.name === "floodgate_admission")).toMatchObject({ httpOnly: true });

    // The store page, as the shopper it was opened for: the order meets the same room, whose ticket is admitted.
    await page.fill("#shopper-id", "drop-fan");
    await page.click("#sign-in");
    await page.waitForFunction(
      () => (document.querySelector("#signed-in") as HTMLElement | null)?.dataset.user === "drop-fan",
    );
    await page.click("#buy");
    await page.waitForSelector("#outcome[data-outcome]", { timeout: 90_000 });
    expect(await page.getAttribute("#outcome", "data-outcome")).toBe("paid");
    expect(seen.errors).toEqual([]);
    await putRoom(intake.baseUrl, room, { mode: "off", admitPerSecond: 20, products: [product] });
  });

  it("opens at once while its room is off", async () => {
    const room = "drop-calm";
    const product = await createProduct(intake.baseUrl, { name: "Calm jacket", price: PRICE, stock: 3 });
    await putRoom(intake.baseUrl, room, { mode: "off", admitPerSecond: 20, products: [product] });
    const { page, seen } = await openTab();
    const link = `/demo/drop?product=${product}&room=${room}&shopper=calm-fan`;
    await page.goto(`${intake.baseUrl}${link}`);
    await page.waitForSelector("body[data-ready=true]");
    expect(new URL(page.url()).pathname).toBe("/demo/drop");
    expect(seen.documents).toEqual(["/demo/drop"]);
    expect(seen.errors).toEqual([]);
  });
});
