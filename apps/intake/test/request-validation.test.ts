// Every bad request is refused with problem+json naming the field, and leaves Redis exactly as it was.
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance, InjectOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY, adminHeaders } from "./support/coupon-test-kit.ts";
import {
  documentedInject,
  expectProblem,
  post,
  prefixKeys,
  streamLengths,
  withCredentials,
} from "./support/intake-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;

beforeAll(async () => {
  env = await createTestEnvironment("request-validation");
  // An admin key, so the admin routes get as far as reading a body rather than answering 503 admin_disabled.
  app = await buildApp({ ...env.config, adminApiKey: ADMIN_KEY }, { logger: false });
  await app.ready();
  // One accepted payment first, so "unchanged" is checked against a non-empty prefix and stream.
  expect((await post(app, "/v1/payments", { userId: "baseline", amount: 1 })).statusCode).toBe(202);
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

interface BadRequest {
  name: string;
  request: InjectOptions;
  status: number;
  code: string;
  field: string;
}

const json = (payload: unknown, headers: Record<string, string> = {}): InjectOptions => ({
  method: "POST",
  url: "/v1/payments",
  headers: { "content-type": "application/json", ...headers },
  payload: typeof payload === "string" ? payload : JSON.stringify(payload),
});
const valid = { userId: "user-1", amount: 100 };
const invalidBody = (name: string, payload: unknown, field: string): BadRequest => ({
  name,
  request: json(payload),
  status: 400,
  code: "validation_error",
  field,
});
const invalidKey = (name: string, key: string): BadRequest => ({
  name,
  request: json(valid, { "idempotency-key": key }),
  status: 400,
  code: "invalid_idempotency_key",
  field: "Idempotency-Key",
});

const paymentCases: BadRequest[] = [
  {
    name: "malformed JSON",
    request: json('{"userId": "user-1", "amount": '),
    status: 400,
    code: "malformed_json",
    field: "body",
  },
  { name: "empty JSON body", request: json(""), status: 400, code: "malformed_json", field: "body" },
  {
    name: "a forbidden __proto__ key",
    request: json('{"userId":"user-1","amount":1,"__proto__":{"admin":true}}'),
    status: 400,
    code: "malformed_json",
    field: "body",
  },
  {
    name: "text/plain",
    request: {
      method: "POST",
      url: "/v1/payments",
      headers: { "content-type": "text/plain" },
      payload: JSON.stringify(valid),
    },
    status: 415,
    code: "unsupported_media_type",
    field: "Content-Type",
  },
  {
    name: "a form body",
    request: {
      method: "POST",
      url: "/v1/payments",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "userId=user-1&amount=100",
    },
    status: 415,
    code: "unsupported_media_type",
    field: "Content-Type",
  },
  {
    name: "a body over 16 KiB",
    request: json({ ...valid, orderId: "o".repeat(17 * 1024) }),
    status: 413,
    code: "body_too_large",
    field: "body",
  },
  {
    name: "no body at all",
    request: { method: "POST", url: "/v1/payments" },
    status: 400,
    code: "validation_error",
    field: "body",
  },
  invalidBody("a JSON array", [valid], "body"),
  invalidBody("JSON null", "null", "body"),
  invalidBody("a JSON string", '"user-1 100"', "body"),
  // userId is optional in the schema now (a customer token names its user), so for a server key the schema
  // names the missing amount first; a missing userId alone is still a 400 naming userId (below).
  invalidBody("an empty object", {}, "amount"),
  invalidBody("a missing amount", { userId: "user-1" }, "amount"),
  invalidBody("a missing userId", { amount: 100 }, "userId"),
  invalidBody("amount as a string", { userId: "user-1", amount: "100" }, "amount"),
  invalidBody("amount as a float", { userId: "user-1", amount: 1.5 }, "amount"),
  invalidBody("amount zero", { userId: "user-1", amount: 0 }, "amount"),
  invalidBody("a negative amount", { userId: "user-1", amount: -100 }, "amount"),
  invalidBody("amount over 10^12", { userId: "user-1", amount: 1_000_000_000_001 }, "amount"),
  invalidBody("amount null", { userId: "user-1", amount: null }, "amount"),
  invalidBody("amount as a boolean", { userId: "user-1", amount: true }, "amount"),
  invalidBody("an unknown field", { ...valid, note: "hi" }, "note"),
  invalidBody("userId as a number", { userId: 42, amount: 100 }, "userId"),
  invalidBody("an empty userId", { userId: "", amount: 100 }, "userId"),
  invalidBody("a 65-character userId", { userId: "u".repeat(65), amount: 100 }, "userId"),
  invalidBody("a userId with a space", { userId: "a b", amount: 100 }, "userId"),
  invalidBody("a non-ASCII userId", { userId: "ü", amount: 100 }, "userId"),
  invalidBody("a malformed currency", { ...valid, currency: "krw" }, "currency"),
  invalidBody("a malformed orderId", { ...valid, orderId: "a b" }, "orderId"),
  invalidBody("an orderId that is not an order id", { ...valid, orderId: "order-42" }, "orderId"),
  invalidKey("a 256-character Idempotency-Key", "k".repeat(256)),
  invalidKey("a non-ASCII Idempotency-Key", "clé-ü"),
  invalidKey("an Idempotency-Key with a space", "key 1"),
  invalidKey("an Idempotency-Key with a tab", "key\t1"),
];

const deposit = (userId: string, payload: unknown, headers: Record<string, string> = {}): InjectOptions => ({
  method: "POST",
  url: `/v1/wallets/${userId}/deposits`,
  headers: { "content-type": "application/json", ...headers },
  payload: JSON.stringify(payload),
});

const depositCases: BadRequest[] = [
  {
    name: "a userId with a space",
    request: deposit("a%20b", { amount: 1 }),
    status: 400,
    code: "validation_error",
    field: "userId",
  },
  {
    name: "a 65-character userId",
    request: deposit("u".repeat(65), { amount: 1 }),
    status: 400,
    code: "validation_error",
    field: "userId",
  },
  {
    name: "a non-ASCII userId",
    request: deposit("%C3%BC", { amount: 1 }),
    status: 400,
    code: "validation_error",
    field: "userId",
  },
  {
    name: "amount as a string",
    request: deposit("user-1", { amount: "1" }),
    status: 400,
    code: "validation_error",
    field: "amount",
  },
  {
    name: "amount zero",
    request: deposit("user-1", { amount: 0 }),
    status: 400,
    code: "validation_error",
    field: "amount",
  },
  {
    name: "a missing amount",
    request: deposit("user-1", {}),
    status: 400,
    code: "validation_error",
    field: "amount",
  },
  {
    name: "a userId in the body",
    request: deposit("user-1", { amount: 1, userId: "user-2" }),
    status: 400,
    code: "validation_error",
    field: "userId",
  },
  {
    name: "another currency",
    request: deposit("user-1", { amount: 1, currency: "USD" }),
    status: 422,
    code: "currency_mismatch",
    field: "currency",
  },
  {
    name: "a bad Idempotency-Key",
    request: deposit("user-1", { amount: 1 }, { "idempotency-key": "x".repeat(256) }),
    status: 400,
    code: "invalid_idempotency_key",
    field: "Idempotency-Key",
  },
  {
    name: "text/plain",
    request: {
      method: "POST",
      url: "/v1/wallets/user-1/deposits",
      headers: { "content-type": "text/plain" },
      payload: '{"amount":1}',
    },
    status: 415,
    code: "unsupported_media_type",
    field: "Content-Type",
  },
];

// As the shop's server (its key names the user in the body or the path, so userId is still required).
const inject = (request: InjectOptions) =>
  documentedInject(app, {
    ...request,
    headers: withCredentials(app, request.headers as Record<string, string>),
  });

async function expectRefusedWithoutWrites(bad: BadRequest) {
  const streams = await streamLengths(app);
  const keys = await prefixKeys(app);
  const response = await inject(bad.request);
  expect(response.statusCode).not.toBe(202);
  expectProblem(response, bad.status, bad.code, bad.field);
  expect(await streamLengths(app)).toEqual(streams);
  expect(await prefixKeys(app)).toEqual(keys);
}

describe("POST /v1/payments refuses", () => {
  it.each(paymentCases)("$name", expectRefusedWithoutWrites);
});

describe("POST /v1/wallets/:userId/deposits refuses", () => {
  it.each(depositCases)("$name", expectRefusedWithoutWrites);
});

describe("problem details", () => {
  it("carry every field error and the RFC 9457 members", async () => {
    const response = await inject(json({ userId: "a b", amount: 1.5, extra: 1 }));
    const problem = expectProblem(response, 400, "validation_error");
    expect(problem).toMatchObject({
      type: "/problems/validation-error",
      title: expect.any(String),
      status: 400,
      instance: "/v1/payments",
      retryable: false,
    });
    const fields = (problem.errors as { field: string; pointer: string; detail: string }[]).map(
      (e) => e.field,
    );
    expect(fields.sort()).toEqual(["amount", "extra", "userId"]);
    for (const error of problem.errors as { field: string; pointer: string; detail: string }[]) {
      expect(error.pointer).toBe(`#/${error.field}`);
      expect(error.detail).toContain(error.field);
    }
  });

  it("answer an unknown route with a 404 problem", async () => {
    const response = await inject({ method: "GET", url: "/v1/nothing-here" });
    expectProblem(response, 404, "not_found");
  });
});

describe("Content-Type: application/json with an empty body", () => {
  // Many HTTP clients send the header on every call, DELETE included: a route that takes no body reads none.
  it("is no body at all on every route that takes none, whoever calls", async () => {
    const document = (await documentedInject(app, { method: "GET", url: "/openapi.json" })).json() as {
      paths: Record<string, Record<string, { requestBody?: unknown }>>;
    };
    const shopper = (await app.auth.customerTokens.mint("empty-body", 600)).token;
    const callers = [withCredentials(app), adminHeaders(), { authorization: `Bearer ${shopper}` }];
    const refused: string[] = [];
    let routes = 0;
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        if (operation.requestBody !== undefined) continue;
        routes++;
        const url = path.replace(/\{\w+\}/g, "nothing-here");
        for (const headers of callers) {
          const response = await documentedInject(app, {
            method: method.toUpperCase() as InjectOptions["method"],
            url,
            headers: { ...headers, "content-type": "application/json" },
          });
          const problem = String(response.headers["content-type"]).startsWith("application/problem+json");
          if (problem && response.json().code === "malformed_json")
            refused.push(`${method.toUpperCase()} ${path}`);
        }
      }
    }
    expect(routes).toBeGreaterThan(15);
    expect([...new Set(refused)]).toEqual([]);
  });

  it("is still a malformed body where a body is expected, and so is a body that is not JSON anywhere", async () => {
    await expectRefusedWithoutWrites(paymentCases.find((bad) => bad.name === "empty JSON body")!);
    const response = await documentedInject(app, {
      method: "DELETE",
      url: "/v1/api-keys/nothing-here",
      headers: { ...adminHeaders(), "content-type": "application/json" },
      payload: "{",
    });
    expectProblem(response, 400, "malformed_json", "body");
  });
});
