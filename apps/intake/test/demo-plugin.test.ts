// The demo store's files at /demo/ (apps/web/public) and the SDK's browser bundle beside them: the right
// content types, the redirect that makes the page's relative links work, and nothing outside that folder.
import { readFile } from "node:fs/promises";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";

let env: TestEnvironment;
let app: FastifyInstance;

beforeAll(async () => {
  env = await createTestEnvironment("demo-plugin");
  app = await buildApp(env.config, { logger: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

const get = (url: string) => app.inject({ method: "GET", url });

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

  it("serves the SDK's browser bundle as JavaScript exporting createCheckout, the same bytes each time", async () => {
    const first = await get("/demo/checkout-sdk.js");
    expect(first.statusCode).toBe(200);
    expect(first.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(first.body).toMatch(/export\s*\{[^}]*createCheckout/);
    expect(first.body).not.toMatch(/^import /m); // self-contained: the browser has no node_modules
    expect((await get("/demo/checkout-sdk.js")).body).toBe(first.body);
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
