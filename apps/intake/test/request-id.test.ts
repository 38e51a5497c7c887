// x-request-id: the caller's when it is printable and at most 128 characters, else a fresh UUID; echoed on
// every answer (refusals, the router's own, a WebSocket's 101), carried by problem bodies as `requestId` and
// by the request's log lines as `reqId`, so one id ties a client's report to the server's logs.
import { once } from "node:events";
import { Writable } from "node:stream";
import { newOperationId } from "@floodgate/domain";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY, adminHeaders } from "./support/coupon-test-kit.ts";
import { documentedInject, expectProblem, get, post } from "./support/intake-test-kit.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const SHOP = "https://shop.example";

let env: TestEnvironment;
let app: FastifyInstance;
let port: number;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  env = await createTestEnvironment("request-id", { env: { ADMIN_API_KEY: ADMIN_KEY, CORS_ORIGINS: SHOP } });
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n")) if (line) logLines.push(JSON.parse(line));
      done();
    },
  });
  app = await buildApp(env.config, { logger: { level: "info", stream } });
  await app.listen({ port: 0, host: "127.0.0.1" });
  port = (app.server.address() as { port: number }).port;
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

describe("x-request-id", () => {
  it("mints a UUID when the caller sends none, a different one per request", async () => {
    const first = await get(app, "/healthz");
    const second = await post(app, "/v1/payments", { userId: "rid-0", amount: 1 });
    expect(second.statusCode).toBe(202);
    expect(first.headers["x-request-id"]).toMatch(UUID);
    expect(second.headers["x-request-id"]).toMatch(UUID);
    expect(second.headers["x-request-id"]).not.toBe(first.headers["x-request-id"]);
  });

  it("echoes the caller's id on an accepted request and in a refusal's problem body", async () => {
    const accepted = await post(
      app,
      "/v1/payments",
      { userId: "rid-1", amount: 1 },
      { "x-request-id": "a-1" },
    );
    expect(accepted.statusCode).toBe(202);
    expect(accepted.headers["x-request-id"]).toBe("a-1");

    const refused = await post(
      app,
      "/v1/payments",
      { userId: "rid-1", amount: 0 },
      { "x-request-id": "b 2" },
    );
    expect(expectProblem(refused, 400, "validation_error", "amount").requestId).toBe("b 2");
    expect(refused.headers["x-request-id"]).toBe("b 2");
  });

  it.each([
    ["longer than 128 characters", "x".repeat(129)],
    ["not printable ASCII", "caf\u00e9"],
    ["empty", ""],
  ])("replaces an id that is %s with a minted one", async (_case, offered) => {
    const response = await get(app, "/healthz", { "x-request-id": offered });
    expect(response.statusCode).toBe(200);
    expect(response.headers["x-request-id"]).toMatch(UUID);
  });

  it("keeps an id of exactly 128 printable characters", async () => {
    const offered = `${"~".repeat(127)}!`;
    const response = await get(app, "/healthz", { "x-request-id": offered });
    expect(response.headers["x-request-id"]).toBe(offered);
  });

  it("carries it on a refused caller, an unknown route and the router's own refusal", async () => {
    const unauthorized = await post(
      app,
      "/v1/payments",
      { userId: "rid-2", amount: 1 },
      { authorization: "", "x-request-id": "c-3" },
    );
    expect(expectProblem(unauthorized, 401, "unauthorized").requestId).toBe("c-3");
    expect(unauthorized.headers["x-request-id"]).toBe("c-3");

    const missing = await get(app, "/v1/nowhere", { "x-request-id": "d-4" });
    expect(expectProblem(missing, 404, "not_found").requestId).toBe("d-4");
    expect(missing.headers["x-request-id"]).toBe("d-4");

    // A bad percent-encoding is refused by the router itself, before any hook runs.
    const malformed = await get(app, "/v1/operations/%E0%A4%A", { "x-request-id": "e-5" });
    expect(expectProblem(malformed, 400, "validation_error", "path").requestId).toBe("e-5");
    expect(malformed.headers["x-request-id"]).toBe("e-5");
  });

  it("is in the log lines of the request that wrote them", async () => {
    const changed = await documentedInject(app, {
      method: "PUT",
      url: "/v1/rate-limits/payments",
      headers: { ...adminHeaders(), "x-request-id": "f-6" },
      payload: { user: { rate: 100, burst: 100 } },
    });
    expect(changed.statusCode).toBe(200);
    const line = logLines.find((l) => l.msg === "rate limit changed");
    expect(line?.reqId).toBe("f-6");
  });

  it("is readable by a cross-origin page, which may also send its own", async () => {
    const preflight = await documentedInject(app, {
      method: "OPTIONS",
      url: "/v1/payments",
      headers: {
        origin: SHOP,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,x-request-id",
      },
    });
    expect(String(preflight.headers["access-control-allow-headers"])).toContain("x-request-id");
    const paid = await post(app, "/v1/payments", { userId: "rid-3", amount: 1 }, { origin: SHOP });
    expect(String(paid.headers["access-control-expose-headers"])).toContain("x-request-id");
  });

  it("is on a WebSocket's 101 and in the problem of a socket it refuses", async () => {
    const url = `ws://127.0.0.1:${port}/v1/operations/${newOperationId("payment", 0)}/ws?access_token=wrong`;
    const socket = new WebSocket(url, { headers: { "x-request-id": "g-7" } });
    // Listening before anything arrives: the 101, the message and the close may come in one read.
    const upgraded = once(socket, "upgrade");
    const received = once(socket, "message");
    const closed = once(socket, "close");
    const [upgrade] = await upgraded;
    expect(upgrade.headers["x-request-id"]).toBe("g-7");
    const [data] = await received;
    const message = JSON.parse(String(data)) as { type: string; problem: Record<string, unknown> };
    expect(message.type).toBe("error");
    expect(message.problem).toMatchObject({ status: 401, requestId: "g-7" });
    const [code] = await closed;
    expect(code).toBe(4401);
  });
});
