// A shop's product page behind its room, in real headless Chromium: the shop's own node:http server gates
// /product with @floodgate/node (its packed tarball) against a real intake's JWKS. A shopper who opens the page is
// sent to the room page, which queues on load with the SDK's joinRoom (its browser bundle) and shows the place;
// a reload keeps the same ticket and place; once the room admits, the page goes through the gate's
// /.floodgate/admit, which sets the gate's HttpOnly cookie, and the product page opens for that shopper.
import {
  createTestEnvironment,
  type IntakeProcess,
  startIntakeProcess,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import { chromiumPath, launchChromium } from "@floodgate/test-fixtures/headless-chromium";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GatedShop, startGatedShop } from "./support/gated-shop.ts";
import { ADMIN_API_KEY, joinAhead, putRoom } from "./support/store-admin.ts";

// Looked up as the file loads: without a browser the file fails outright, with no test reported as skipped.
const executablePath = chromiumPath();
const ROOM = "gated-drop";

let shop: GatedShop;
let env: TestEnvironment;
let intake: IntakeProcess;
let browser: Browser;
let context: BrowserContext | undefined;

beforeAll(async () => {
  // The page's origin must be known before the intake starts: its CORS_ORIGINS lists it.
  shop = await startGatedShop();
  env = await createTestEnvironment("room-gate-browser", {
    env: { ADMIN_API_KEY, CORS_ORIGINS: shop.origin, HOST: "127.0.0.1" },
  });
  intake = await startIntakeProcess(env.config);
  shop.useFloodgate(intake.baseUrl, env.serverKey, ROOM);
  browser = await launchChromium(executablePath);
}, 300_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await intake?.kill();
  await shop?.close();
  await env?.cleanup();
});

const later = () => new Date(Date.now() + 600_000).toISOString();
const now = () => new Date().toISOString();

/** The place the room page shows, once it shows one. */
async function shownPlace(page: Page): Promise<number> {
  await page.waitForFunction(() => /^\d+$/.test(document.querySelector("#position")?.textContent ?? ""));
  return Number(await page.textContent("#position"));
}

describe("a shop's product page behind its room", () => {
  it("sends the shopper to the room, keeps the ticket across a reload, and opens the page once admitted", async () => {
    // Nobody is admitted before the start: the shopper waits behind two others until the test brings it forward.
    await putRoom(intake.baseUrl, ROOM, { mode: "on", admitPerSecond: 50, startsAt: later() });
    await joinAhead(intake.baseUrl, env.serverKey, ROOM, ["ahead-1", "ahead-2"]);
    context = await browser.newContext();
    await context.addCookies([{ name: "shopper", value: "gate-fan", url: shop.origin }]);
    const page = await context.newPage();
    const pageErrors: string[] = [];
    const joins: string[] = [];
    const visited: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (request.method() === "POST" && url.pathname === `/v1/rooms/${ROOM}/tickets`)
        joins.push(url.pathname);
      if (url.origin === shop.origin && request.resourceType() === "document") visited.push(url.pathname);
    });

    await page.goto(`${shop.origin}/product`);
    const queue = new URL(page.url());
    expect(queue.pathname).toBe("/queue");
    expect(queue.searchParams.get("return")).toBe("/product");
    expect(await shownPlace(page)).toBe(3);
    const ticketKey = `floodgate.room.${ROOM}`;
    const ticket = await page.evaluate((key) => sessionStorage.getItem(key), ticketKey);
    expect(ticket).toMatch(/^tkt_\w+$/);

    await page.reload();
    expect(await shownPlace(page)).toBe(3);
    expect(await page.evaluate((key) => sessionStorage.getItem(key), ticketKey)).toBe(ticket);
    expect(joins).toHaveLength(1);
    expect(await page.textContent("h1")).toBe("You are in line");

    await putRoom(intake.baseUrl, ROOM, { mode: "on", admitPerSecond: 50, startsAt: now() });
    await page.waitForURL(`${shop.origin}/product`, { timeout: 30_000 });
    expect(await page.textContent("h1")).toBe("The drop");
    expect(await page.textContent("#shopper")).toBe("for gate-fan");
    expect(visited).toEqual(["/product", "/queue", "/queue", "/.floodgate/admit", "/product"]);
    const [cookie] = (await context.cookies(shop.origin)).filter((c) => c.name === "floodgate_admission");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax" });

    // The cookie lets the shopper back in without the room.
    await page.goto(`${shop.origin}/product`);
    expect(new URL(page.url()).pathname).toBe("/product");
    expect(await page.textContent("#shopper")).toBe("for gate-fan");
    expect(pageErrors).toEqual([]);
  });
});
