// The demo store's files at /demo/ (apps/web/public) and the SDK's prebuilt browser bundle beside them: the right
// content types, the redirect that makes the page's relative links work, and nothing outside that folder. With
// DEMO_LOGIN on, the demo's sign-in (a customer token for the id picked) and its server-side deposit into the
// signed-in shopper's own wallet, applied by a real worker.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { loadConfig } from "@floodgate/config";
import {
  configToEnv,
  createTestEnvironment,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { documentedInject, waitUntil } from "./support/intake-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;
/** The same deployment started with DEMO_LOGIN=on (and its loopback HOST, which DEMO_LOGIN requires). */
let demoApp: FastifyInstance;
let worker: WorkerProcess;

beforeAll(async () => {
  env = await createTestEnvironment("demo-plugin");
  app = await buildApp(env.config, { logger: false });
  const demoConfig = loadConfig({ ...configToEnv(env.config), DEMO_LOGIN: "on", HOST: "127.0.0.1" });
  demoApp = await buildApp(demoConfig, { logger: false });
  [worker] = await Promise.all([startWorkerProcess(env.config), app.ready(), demoApp.ready()]);
});

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await demoApp?.close();
  await env?.cleanup();
});

const get = (url: string) => documentedInject(app, { method: "GET", url });

describe("the demo store at /demo/", () => {
  it("serves the page as HTML, byte for byte the file in apps/web/public", async () => {
    const page = await get("/demo/");
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    const file = await readFile(new URL("../../web/public/index.html", import.meta.url), "utf8");
    expect(page.body).toBe(file);
    expect(page.body).toContain('id="buy"');
  });

  it("redirects /demo to /demo/, keeping the query (the product link)", async () => {
    const answer = await get("/demo?product=prd_x&room=demo");
    expect(answer.statusCode).toBe(301);
    expect(answer.headers.location).toBe("/demo/?product=prd_x&room=demo");
  });

  it("serves the page's modules and styles with their content types", async () => {
    const module = await get("/demo/store-page.js");
    expect(module.statusCode).toBe(200);
    expect(module.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(module.body).toContain("createCheckout");
    const styles = await get("/demo/store.css");
    expect(styles.statusCode).toBe(200);
    expect(styles.headers["content-type"]).toBe("text/css; charset=utf-8");
  });

  it("serves the SDK's prebuilt browser bundle as JavaScript exporting createCheckout, byte for byte", async () => {
    const first = await get("/demo/checkout-sdk.js");
    expect(first.statusCode).toBe(200);
    expect(first.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(first.body).toMatch(/export\s*\{[^}]*createCheckout/);
    expect(first.body).not.toMatch(/^import /m); // self-contained: the browser has no node_modules
    // The static file the SDK's build wrote (its "./browser" export), not a bundle made at run time.
    const built = createRequire(import.meta.url).resolve("@floodgate/checkout-sdk/browser");
    expect(first.body).toBe(await readFile(built, "utf8"));
  });

  it.each([
    "/demo/../package.json",
    "/demo/%2e%2e/package.json",
    "/demo/..%2fpackage.json",
    "/demo/%2e%2e%2f%2e%2e%2fintake%2fsrc%2fapp.ts",
    "/demo/..%5cpackage.json",
    "/demo/.gitignore",
    "/demo/test/demo-store.browser.test.ts",
  ])("refuses %s: nothing outside apps/web/public", async (url) => {
    const answer = await get(url);
    expect(answer.statusCode).toBe(404);
    expect(answer.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(answer.json()).toMatchObject({ code: "not_found" });
  });

  it("answers 404 problem+json for a file the demo does not have", async () => {
    const answer = await get("/demo/missing.js");
    expect(answer.statusCode).toBe(404);
    expect(answer.json()).toMatchObject({
      status: 404,
      code: "not_found",
      detail: "the demo has no missing.js",
    });
  });
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const login = (userId: unknown, target = demoApp) =>
  documentedInject(target, { method: "POST", url: "/demo/login", payload: { userId } });
const demoDeposit = (amount: number, headers: Record<string, string> = {}) =>
  documentedInject(demoApp, { method: "POST", url: "/demo/deposits", headers, payload: { amount } });

/** Polls of 50 ms each (waitUntil) for what the worker applies on its own time: 15 s and more on a busy machine. */
const SETTLE_ATTEMPTS = 300;

/** GET `url` as the shopper `token` signs in, expecting a 200: its body. */
async function readAsShopper(url: string, token: string) {
  const answer = await documentedInject(demoApp, { method: "GET", url, headers: bearer(token) });
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.json();
}

/** Reads the wallet as its shopper until it holds `balance` (the worker applies deposits on its own time). */
const walletToHold = (userId: string, token: string, balance: number) =>
  waitUntil(
    () => readAsShopper(`/v1/wallets/${userId}`, token),
    (wallet) => wallet.balance === balance,
    `the wallet of ${userId} to hold ${balance}`,
    SETTLE_ATTEMPTS,
  );

/** The deposit as GET /v1/deposits/:id answers once it is no longer pending. */
const depositToSettle = (id: string, token: string) =>
  waitUntil(
    () => readAsShopper(`/v1/deposits/${id}`, token),
    (deposit) => deposit.status !== "pending",
    `deposit ${id} to settle`,
    SETTLE_ATTEMPTS,
  );

describe("the demo's sign-in and deposit (DEMO_LOGIN)", () => {
  it("are not there unless DEMO_LOGIN is on", async () => {
    expect(app.config.demoLogin).toBe(false);
    expect(demoApp.config.demoLogin).toBe(true);
    expect((await login("shopper-a", app)).statusCode).toBe(404);
    const deposit = await documentedInject(app, {
      method: "POST",
      url: "/demo/deposits",
      payload: { amount: 100 },
    });
    expect(deposit.statusCode).toBe(404);
  });

  it("signs a shopper in: a customer token for that user, which the API takes as theirs", async () => {
    const answer = await login("shopper-a");
    expect(answer.statusCode, answer.body).toBe(201);
    const session = answer.json();
    expect(session).toEqual({
      token: expect.any(String),
      userId: "shopper-a",
      expiresAt: expect.any(String),
    });
    expect(Date.parse(session.expiresAt)).toBeGreaterThan(Date.now());
    const own = await documentedInject(demoApp, {
      method: "GET",
      url: "/v1/wallets/shopper-a",
      headers: bearer(session.token),
    });
    expect(own.statusCode, own.body).toBe(200);
    // Someone else's wallet is not found for this shopper.
    const other = await documentedInject(demoApp, {
      method: "GET",
      url: "/v1/wallets/shopper-b",
      headers: bearer(session.token),
    });
    expect(other.statusCode).toBe(404);
  });

  it.each([
    ["a user id with a space", "not a user"],
    ["an empty user id", ""],
    ["a 65-character user id", "u".repeat(65)],
    ["a number", 7],
    ["no user id", undefined],
  ])("refuses %s with a 400 naming userId", async (_case, userId) => {
    const answer = await login(userId);
    expect(answer.statusCode).toBe(400);
    expect(answer.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(answer.json()).toMatchObject({ code: "validation_error", field: "userId" });
  });

  it("deposits into the signed-in shopper's own wallet, whoever else the page might name", async () => {
    const { token } = (await login("depositor")).json();
    const answer = await demoDeposit(2500, bearer(token));
    expect(answer.statusCode, answer.body).toBe(202);
    const { id } = answer.json();
    expect(id).toMatch(/^dep_/);
    expect(await walletToHold("depositor", token, 2500)).toMatchObject({
      userId: "depositor",
      balance: 2500,
    });
    // The worker commits the wallet, then writes the deposit's status: the balance can show a moment before it.
    expect(await depositToSettle(id, token)).toMatchObject({
      id,
      userId: "depositor",
      amount: 2500,
      status: "succeeded",
    });

    // The body cannot name another wallet: the user is the token's.
    const elsewhere = await documentedInject(demoApp, {
      method: "POST",
      url: "/demo/deposits",
      headers: bearer(token),
      payload: { amount: 100, userId: "someone-else" },
    });
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.json()).toMatchObject({ code: "validation_error" });
  });

  it("takes only a shopper's token: none is 401, a server key or a forged token is refused", async () => {
    const anonymous = await demoDeposit(100);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ code: "unauthorized" });
    expect(anonymous.headers["www-authenticate"]).toMatch(/^Bearer/);

    const server = await demoDeposit(100, bearer(env.serverKey));
    expect(server.statusCode).toBe(403);
    expect(server.json()).toMatchObject({ code: "forbidden_caller" });

    const { token } = (await login("forger")).json();
    const [header, payload] = token.split(".");
    const forged = await demoDeposit(100, bearer(`${header}.${payload}.${"A".repeat(43)}`));
    expect(forged.statusCode).toBe(401);
    expect(forged.json()).toMatchObject({ code: "invalid_token" });
  });

  it("refuses an amount that is not a positive integer, naming it", async () => {
    const { token } = (await login("careless")).json();
    for (const amount of [0, -5, 1.5]) {
      const answer = await demoDeposit(amount, bearer(token));
      expect(answer.statusCode).toBe(400);
      expect(answer.json()).toMatchObject({ code: "validation_error", field: "amount" });
    }
  });
});
