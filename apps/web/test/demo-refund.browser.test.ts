// The demo store's refund button in real headless Chromium, served by a real intake process with a real worker
// (DEMO_LOGIN on): a shopper buys, the admin strip refunds the shopper's last paid order in full, and the unit
// comes back on the page and in the databases, the money in the wallet. The browser never holds a server key.
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
import { ADMIN_API_KEY, createProduct } from "./support/store-admin.ts";

const executablePath = chromiumPath();
const PRICE = 20_000;

let env: TestEnvironment;
let intake: IntakeProcess;
let worker: WorkerProcess;
let browser: Browser;
let shards: ShardRecords;
let demo: DemoPage | undefined;

beforeAll(async () => {
  env = await createTestEnvironment("demo-refund-browser", {
    env: { ADMIN_API_KEY, DEMO_LOGIN: "on", HOST: "127.0.0.1" },
  });
  [intake, worker] = await Promise.all([startIntakeProcess(env.config), startWorkerProcess(env.config)]);
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
  await worker?.stop();
  await intake?.kill();
  await shards?.close();
  await env?.cleanup();
});

const adminStatus = async (page: DemoPage["page"], pattern: RegExp) => {
  await page.waitForFunction(
    (source) => new RegExp(source).test(document.querySelector("#admin-status")?.textContent ?? ""),
    pattern.source,
    { timeout: 60_000 },
  );
  return (await page.textContent("#admin-status")) ?? "";
};

const login = async (userId: string) =>
  (
    await (
      await fetch(`${intake.baseUrl}/demo/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ userId }),
      })
    ).json()
  ).token as string;

describe("the demo store's refund button", () => {
  it("refunds the last paid order in full: the order is refunded, its unit back in stock, the price in the wallet", async () => {
    const product = await createProduct(intake.baseUrl, {
      name: "Returnable sneaker",
      price: PRICE,
      stock: 3,
    });
    demo = await openDemoPage(browser, intake.baseUrl, {
      product,
      room: "closed",
      shopper: "refund-shopper",
    });
    expect(await demo.buy()).toEqual({ outcome: "paid", text: expect.stringMatching(/^Paid\. Order ord_/) });
    await demo.stockToRead(2);
    const [order] = (await shards.forShopper("refund-shopper")).orders;
    expect(order).toMatchObject({ status: "paid" });

    await demo.page.click("#refund-order");
    const text = await adminStatus(demo.page, /^(Refunded|Failed)/);
    expect(text).toMatch(new RegExp(`^Refunded: order ${order!.id} is refunded \\(refund rfd_`));
    await demo.stockToRead(3);
    expect((await shards.forShopper("refund-shopper")).orders).toEqual([
      { id: order!.id, status: "refunded", amount: PRICE },
    ]);
    const wallet = await fetch(`${intake.baseUrl}/v1/wallets/refund-shopper`, {
      headers: { authorization: `Bearer ${env.serverKey}` },
    });
    expect((await wallet.json()).balance).toBe(PRICE);

    // Nothing left to refund: the button says so and sends nothing.
    await demo.page.click("#refund-order");
    expect(await adminStatus(demo.page, /^Failed/)).toMatch(/no paid order to refund/);
    const refunds = demo.apiRequests.filter((call) => call.path === "/demo/refunds");
    expect(refunds).toHaveLength(1);
    expect(refunds[0]!.authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(demo.apiRequests.some((call) => call.authorization?.includes("fg_sk_"))).toBe(false);
  });

  it("refunds only the signed-in shopper's own paid order", async () => {
    const product = await createProduct(intake.baseUrl, { name: "Kept sneaker", price: PRICE, stock: 2 });
    demo = await openDemoPage(browser, intake.baseUrl, { product, room: "closed", shopper: "refund-owner" });
    expect((await demo.buy()).outcome).toBe("paid");
    const [order] = (await shards.forShopper("refund-owner")).orders;
    const other = await fetch(`${intake.baseUrl}/demo/refunds`, {
      method: "POST",
      headers: { authorization: `Bearer ${await login("refund-thief")}`, "content-type": "application/json" },
      body: JSON.stringify({ orderId: order!.id }),
    });
    expect(other.status).toBe(404);
    expect((await other.json()).code).toBe("not_found");
    const server = await fetch(`${intake.baseUrl}/demo/refunds`, {
      method: "POST",
      headers: { authorization: `Bearer ${env.serverKey}`, "content-type": "application/json" },
      body: JSON.stringify({ orderId: order!.id }),
    });
    expect(server.status).toBe(403);
    expect((await shards.forShopper("refund-owner")).orders).toEqual([
      { id: order!.id, status: "paid", amount: PRICE },
    ]);
  });
});
