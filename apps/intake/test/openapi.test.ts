// The OpenAPI document at /openapi.json: valid OpenAPI 3.1 by a real validator, every route in it with an
// operationId, its security what the server actually enforces, the headers the answers carry, and problem
// answers as problem+json. /docs is the reference page; every problem `type` resolves to a page.
import { readFile } from "node:fs/promises";
import SwaggerParser from "@apidevtools/swagger-parser";
import { OPERATION_STATUSES, ORDER_STATUSES, PING_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from "@floodgate/domain";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ERRORS, type ErrorCode } from "../src/errors/error-catalogue.ts";
import { problemBody } from "../src/errors/problem-reply.ts";
import { documentedInject, post } from "./support/intake-test-kit.ts";
import { expectAnswerDocumented } from "./support/openapi-contract.ts";

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string }[];
  requestBody?: { content?: Record<string, { schema: unknown }> };
  responses: Record<
    string,
    { headers?: Record<string, unknown>; content?: Record<string, { schema: unknown }> }
  >;
  "x-websocket"?: { serverMessages: Record<string, unknown> };
}
interface Document {
  openapi: string;
  info: { version: string; license?: { name: string; identifier?: string } };
  servers?: { url: string; description?: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, { required?: string[] }> };
  webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: unknown }> } } }>;
}

/** Not in the document: the document and its page themselves, and the demo store (not part of the API). */
const UNDOCUMENTED = [/^\/openapi\.json$/, /^\/docs/, /^\/demo/];

let env: TestEnvironment;
let app: FastifyInstance;
let document: Document;

beforeAll(async () => {
  // A per-user limit on payments, so an accepted payment carries the RateLimit headers the document names.
  env = await createTestEnvironment("openapi", { env: { RATE_LIMITS: "payments.user=10/s:20" } });
  // An admin key, so the admin routes refuse a missing credential with 401 rather than 503 admin_disabled.
  app = await buildApp(
    { ...env.config, adminApiKey: "openapi-test-admin-key-0123456789" },
    { logger: false },
  );
  await app.ready();
  const response = await documentedInject(app, { method: "GET", url: "/openapi.json" });
  expect(response.statusCode).toBe(200);
  document = response.json();
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

/** Every route the app serves, from Fastify's own route tree: [method, url] (HEAD left out: Fastify adds it). */
function registeredRoutes(): [string, string][] {
  const routes: [string, string][] = [];
  const prefixes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split("\n")) {
    const match = /^([│ ]*)[├└]── (\S*) \(([^)]+)\)$/.exec(line);
    if (match === null) continue;
    const depth = match[1]!.length / 4;
    prefixes.length = depth;
    const url = prefixes.join("") + match[2];
    prefixes.push(match[2]!);
    for (const method of match[3]!.split(", ")) if (method !== "HEAD") routes.push([method, url]);
  }
  return routes;
}

const operations = () =>
  Object.entries(document.paths).flatMap(([url, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ method, url, operation })),
  );

const operation = (id: string) => {
  const found = operations().find((o) => o.operation.operationId === id);
  if (!found) throw new Error(`no operation ${id}`);
  return found;
};

describe("GET /openapi.json", () => {
  it("is a valid OpenAPI 3.1 document, by @apidevtools/swagger-parser", async () => {
    expect(document.openapi).toBe("3.1.0");
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy();
  });

  it("states Floodgate's version, the one the root package.json gives", async () => {
    const root = JSON.parse(await readFile(new URL("../../../package.json", import.meta.url), "utf8"));
    expect(document.info.version).toBe(root.version);
  });

  it("names its servers, its license (the repository's) and declares every tag its operations use", async () => {
    expect(document.servers).toEqual([{ url: "/", description: expect.any(String) }]);
    const root = JSON.parse(await readFile(new URL("../../../package.json", import.meta.url), "utf8"));
    expect(document.info.license).toEqual({ name: root.license, identifier: root.license });
    const declared = (document.tags ?? []).map((tag) => tag.name);
    expect(new Set(declared).size).toBe(declared.length);
    const used = new Set(operations().flatMap(({ operation: op }) => op.tags ?? []));
    expect([...used].filter((tag) => !declared.includes(tag))).toEqual([]);
    expect([...declared].filter((tag) => !used.has(tag))).toEqual([]);
    expect(operation("listEvents").operation.tags).toEqual(["Events"]);
  });

  it("documents the events feed: its query and its page (a named body)", () => {
    const { url, operation: op } = operation("listEvents");
    expect(url).toBe("/v1/events");
    expect((op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name)).toEqual([
      "after",
      "type",
      "limit",
    ]);
    expect(op.responses["200"]!.content!["application/json"]!.schema).toEqual({
      $ref: "#/components/schemas/EventList",
    });
  });

  it("is served without credentials", async () => {
    const response = await documentedInject(app, { method: "GET", url: "/openapi.json" });
    expect(response.statusCode).toBe(200);
  });

  it("documents every registered route once, with a unique operationId, a summary and a tag", () => {
    const routes = registeredRoutes().filter(([, url]) => !UNDOCUMENTED.some((pattern) => pattern.test(url)));
    expect(routes.length).toBeGreaterThan(30);
    for (const [method, url] of routes) {
      const documented = document.paths[url.replace(/:(\w+)/g, "{$1}")]?.[method.toLowerCase()];
      expect(documented, `${method} ${url}`).toBeDefined();
      expect(documented!.operationId, `${method} ${url}`).toMatch(/^[a-z][A-Za-z]+$/);
      expect(documented!.summary, `${method} ${url}`).toBeTruthy();
      expect(documented!.tags?.length, `${method} ${url}`).toBeGreaterThan(0);
    }
    expect(operations()).toHaveLength(routes.length);
    const ids = operations().map((o) => o.operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("states each operation's security as the server enforces it: secured ones answer 401 without a credential", async () => {
    const http = operations().filter((o) => o.operation["x-websocket"] === undefined);
    for (const { method, url, operation: op } of http) {
      const response = await documentedInject(app, {
        method: method.toUpperCase() as "GET",
        url: url.replace(/\{\w+\}/g, "x"),
        ...(["post", "put", "patch"].includes(method) ? { payload: {} } : {}),
      });
      const secured = (op.security ?? []).length > 0;
      expect(response.statusCode === 401, `${method} ${url} (${response.statusCode})`).toBe(secured);
    }
    expect(operation("createPayment").operation.security).toEqual([{ serverKey: [] }, { customerToken: [] }]);
    expect(operation("createCoupon").operation.security).toEqual([{ adminKey: [] }]);
    expect(operation("getCatalogProduct").operation.security).toEqual([]);
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual([
      "adminKey",
      "customerToken",
      "serverKey",
      "socketAccessToken",
    ]);
  });

  it("documents the headers of the accepting routes: Idempotency-Key, Admission-Token, Location, RateLimit", () => {
    for (const id of ["createPayment", "createDeposit", "issueCoupon", "createOrder"]) {
      const { operation: op } = operation(id);
      const headers = (op.parameters ?? []).filter((p) => p.in === "header").map((p) => p.name);
      expect(headers, id).toEqual(["Idempotency-Key", "Admission-Token"]);
      expect(Object.keys(op.responses["202"]!.headers ?? {}), id).toEqual([
        "Location",
        "RateLimit",
        "RateLimit-Policy",
        "Idempotent-Replayed",
      ]);
      expect(Object.keys(op.responses["429"]!.headers ?? {}), id).toEqual([
        "Retry-After",
        "RateLimit",
        "RateLimit-Policy",
      ]);
      expect(Object.keys(op.responses["503"]!.headers ?? {}), id).toEqual(["Retry-After"]);
    }
    expect(Object.keys(operation("joinRoom").operation.responses["201"]!.headers ?? {})).toEqual([
      "Location",
    ]);
    expect(Object.keys(operation("createPayment").operation.responses["401"]!.headers ?? {})).toEqual([
      "WWW-Authenticate",
    ]);
  });

  it("names headers an accepted payment really carries", async () => {
    const response = await post(app, "/v1/payments", { userId: "openapi-user", amount: 100 });
    expect(response.statusCode).toBe(202);
    const documented = Object.keys(operation("createPayment").operation.responses["202"]!.headers ?? {});
    for (const name of documented.filter((n) => n !== "Idempotent-Replayed")) {
      expect(response.headers[name.toLowerCase()], name).toBeDefined();
    }
  });

  it("answers every problem as application/problem+json with the shared Problem schema", () => {
    expect(document.components.schemas.Problem?.required).toEqual(["type", "title", "status"]);
    for (const { method, url, operation: op } of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (!/^[45]/.test(status)) continue;
        // Not a problem: /readyz's 503 is its readiness report (health-routes.test.ts holds it to the server).
        if (`${method} ${url} ${status}` === "get /readyz 503") continue;
        expect(Object.keys(response.content ?? {}), `${method} ${url} ${status}`).toEqual([
          "application/problem+json",
        ]);
      }
    }
    expect(operation("createPayment").operation.responses["4XX"]!.content).toEqual({
      "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } },
    });
  });

  it("names every request and response body: each is a reference to a component", () => {
    const bodies: [string, unknown][] = [];
    for (const { method, url, operation: op } of operations()) {
      if (!url.startsWith("/v1/")) continue; // the problem pages answer HTML too; /metrics answers text
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
        bodies.push([`${method} ${url} request ${type}`, media.schema]);
      }
      for (const [status, response] of Object.entries(op.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          bodies.push([`${method} ${url} ${status} ${type}`, media.schema]);
        }
      }
    }
    expect(bodies.length).toBeGreaterThan(100);
    for (const [where, schema] of bodies) {
      expect(schema, where).toEqual({ $ref: expect.stringMatching(/^#\/components\/schemas\/[A-Z]\w+$/) });
      const name = (schema as { $ref: string }).$ref.split("/").pop()!;
      expect(document.components.schemas[name], where).toBeDefined();
    }
    const answer = (id: string, status: string) =>
      operation(id).operation.responses[status]!.content!["application/json"]!.schema;
    expect(answer("getPayment", "200")).toEqual({ $ref: "#/components/schemas/Payment" });
    expect(answer("getDeposit", "200")).toEqual({ $ref: "#/components/schemas/Payment" });
    expect(answer("getOrder", "200")).toEqual({ $ref: "#/components/schemas/Order" });
    expect(answer("getRefund", "200")).toEqual({ $ref: "#/components/schemas/Refund" });
    expect(answer("getCouponIssue", "200")).toEqual({ $ref: "#/components/schemas/CouponIssue" });
  });

  it("has components for the main bodies, their statuses the server's lists", () => {
    const { schemas } = document.components;
    const statuses = (name: string) =>
      (schemas[name] as { properties: { status: { enum: string[] } } }).properties.status.enum;
    expect(statuses("Payment")).toEqual([...OPERATION_STATUSES]);
    expect(statuses("Order")).toEqual([...ORDER_STATUSES]);
    expect(statuses("Refund")).toEqual([...OPERATION_STATUSES]);
    expect(statuses("CouponIssue")).toEqual([...OPERATION_STATUSES]);
    for (const name of [
      "Problem",
      "PaymentRequest",
      "OrderCreateRequest",
      "RefundRequest",
      "CouponIssueRequest",
    ]) {
      expect(schemas[name], name).toBeDefined();
    }
    expect(schemas.WebhookEndpointList).toMatchObject({
      properties: { data: { items: { $ref: "#/components/schemas/WebhookEndpoint" } } },
    });
  });

  it("documents every webhook event a shop can subscribe to and the test ping, its body a named event schema", () => {
    expect(Object.keys(document.webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES, PING_EVENT_TYPE].sort());
    expect(document.webhooks[PING_EVENT_TYPE]!.post.requestBody.content["application/json"]!.schema).toEqual({
      $ref: "#/components/schemas/PingEvent",
    });
    const bodyOf = (type: string) =>
      document.webhooks[type]!.post.requestBody.content["application/json"]!.schema;
    expect(bodyOf("payment.succeeded")).toEqual({ $ref: "#/components/schemas/PaymentEvent" });
    expect(bodyOf("order.paid")).toEqual({ $ref: "#/components/schemas/OrderEvent" });
    expect(bodyOf("coupon.issued")).toEqual({ $ref: "#/components/schemas/CouponIssueEvent" });
    expect(bodyOf("refund.failed")).toEqual({ $ref: "#/components/schemas/RefundEvent" });
    expect(document.components.schemas.OrderEvent).toMatchObject({
      properties: { data: { $ref: "#/components/schemas/Order" } },
    });
  });

  it("describes both WebSockets: the upgrade, the messages each sends", () => {
    // The ticket socket's params schema refuses a malformed room or ticket id over HTTP (400) before any
    // upgrade; the operation socket's takes any id and answers a malformed one on the socket (4400).
    const sockets = {
      watchOperation: { messages: ["status", "error"], statuses: ["101", "426"] },
      watchTicket: {
        messages: ["position", "admitted", "sold_out", "closed", "expired", "error"],
        statuses: ["101", "400", "426"],
      },
    };
    for (const [id, { messages, statuses }] of Object.entries(sockets)) {
      const { url, operation: op } = operation(id);
      expect(url).toMatch(/\/ws$/);
      // 101 for the socket; 426 (problem+json, Upgrade: websocket) for a GET without the upgrade.
      expect(Object.keys(op.responses)).toEqual(statuses);
      expect(Object.keys(op.responses["426"]!.headers ?? {})).toEqual(["Upgrade"]);
      expect(Object.keys(op["x-websocket"]!.serverMessages)).toEqual(messages);
      expect(op.security).toContainEqual({ socketAccessToken: [] });
    }
  });
});

describe("the test kit's check of every answer against the document", () => {
  it("refuses an answer whose body, status or header the document does not give", async () => {
    const health = await documentedInject(app, { method: "GET", url: "/healthz" });
    await expectAnswerDocumented(app, "GET", "/healthz", health);
    // The same answer, as if /readyz had given it: not a readiness report.
    await expect(expectAnswerDocumented(app, "GET", "/readyz", health)).rejects.toThrow(/body/);
    const accepted = await post(app, "/v1/payments", { userId: "openapi-kit", amount: 1 });
    expect(accepted.statusCode).toBe(202);
    // A payment's read answers no 202.
    await expect(expectAnswerDocumented(app, "GET", "/v1/payments/x", accepted)).rejects.toThrow(
      /documented/,
    );
    // A path no operation has is only ever the router's refusal.
    await expect(expectAnswerDocumented(app, "GET", "/v1/nowhere", health)).rejects.toThrow(/router/);
    // An API header the document does not promise for that answer: /healthz's 200 names no Location.
    const located = { ...health, headers: { ...health.headers, location: "/elsewhere" } };
    await expect(expectAnswerDocumented(app, "GET", "/healthz", located)).rejects.toThrow(
      /documents Location/,
    );
    // UNDOCUMENTED_ANSWERS spares only the statuses it names: the document failing is checked.
    const failed = { ...health, statusCode: 500 };
    await expect(expectAnswerDocumented(app, "GET", "/openapi.json", failed)).rejects.toThrow(/router/);
  });
});

describe("GET /docs", () => {
  it("is the reference page, served with its own assets and without credentials", async () => {
    const page = await documentedInject(app, { method: "GET", url: "/docs" });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    const links = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(0);
    // Offline: every file the page loads comes from this intake, none from a CDN.
    for (const asset of links) {
      expect(asset, asset).toMatch(/^\/docs\/static\//);
      const response = await documentedInject(app, { method: "GET", url: asset });
      expect(response.statusCode, asset).toBe(200);
    }
  });
});

describe("problem types", () => {
  const codes = Object.keys(ERRORS) as ErrorCode[];

  it("every code's `type`, resolved against a request's URI, answers a page that explains it", async () => {
    for (const code of codes) {
      const { type } = problemBody(code, {}, "/v1/payments");
      const url = new URL(type, "http://intake.example/v1/payments");
      const json = await documentedInject(app, { method: "GET", url: url.pathname });
      expect(json.statusCode, type).toBe(200);
      expect(json.json()).toMatchObject({
        type,
        code,
        status: ERRORS[code].status,
        retryable: ERRORS[code].retryable,
      });
      expect(json.json().guidance.length, code).toBeGreaterThan(10);
      const html = await documentedInject(app, {
        method: "GET",
        url: url.pathname,
        headers: { accept: "text/html" },
      });
      expect(html.statusCode).toBe(200);
      expect(html.headers["content-type"]).toMatch(/^text\/html/);
      expect(html.body).toContain(`<code>${code}</code>`);
    }
  });

  it("/problems lists every code; an unknown one is a 404 problem", async () => {
    const index = await documentedInject(app, { method: "GET", url: "/problems" });
    expect(index.json().data.map((entry: { code: string }) => entry.code)).toEqual(codes);
    const unknown = await documentedInject(app, { method: "GET", url: "/problems/no-such-thing" });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers["content-type"]).toMatch(/^application\/problem\+json/);
  });
});
