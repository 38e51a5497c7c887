// POST /v1/orders/:orderId/provider-payments and GET /v1/provider-payments/:id through the real intake on the
// real Redis and Postgres, every answer held against the OpenAPI document: server key only, Idempotency-Key
// required, the payment queued in its order's partition with an id carrying the order's bucket and no user.
// (What the worker decides is apps/worker/test/provider-payments.test.ts'.)
import { decodeOperationMessage, newOperationId, parseOperationId } from "@floodgate/domain";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { expectProblem, findStreamEntry, get, post, totalStreamLength } from "./support/intake-test-kit.ts";
import { openJsonSocket, withAccessToken } from "./support/json-socket.ts";

let env: TestEnvironment;
let app: FastifyInstance;
let shopper: string;
let keys = 0;
const key = () => ({ "idempotency-key": `provider-test-${++keys}` });
const charge = { provider: "stripe", reference: "pi_3Pp", amount: 1_000 };
const orderId = () => newOperationId("order", 100 + (keys % 7));
const url = (order: string) => `/v1/orders/${order}/provider-payments`;

beforeAll(async () => {
  env = await createTestEnvironment("provider-payments-accept");
  app = await buildApp(env.config, { logger: false });
  await app.ready();
  shopper = (await app.auth.customerTokens.mint("provider-shopper", 900)).token;
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

describe("POST /v1/orders/:orderId/provider-payments", () => {
  it("answers 202 + Location, queued in the order's partition with the order's bucket and no user", async () => {
    const order = orderId();
    const before = await totalStreamLength(app);
    const response = await post(app, url(order), charge, key());
    expect(response.statusCode, response.body).toBe(202);
    const body = response.json();
    expect(body).toEqual({ id: expect.stringMatching(/^ppy_/), status: "pending" });
    expect(response.headers.location).toBe(`/v1/provider-payments/${body.id}`);
    expect(parseOperationId(body.id)?.bucket).toBe(parseOperationId(order)?.bucket);
    expect(await totalStreamLength(app)).toBe(before + 1);
    const entry = await findStreamEntry(app, body.id);
    const message = decodeOperationMessage(entry!.fields.m!, entry!.fields.id);
    expect(message).toMatchObject({ kind: "provider_payment", orderId: order, ...charge, currency: "KRW" });
    expect(message).not.toHaveProperty("userId");
    expect((await get(app, response.headers.location as string)).json()).toEqual({
      id: body.id,
      orderId: order,
      ...charge,
      currency: "KRW",
      status: "pending",
      createdAt: expect.any(String),
    });
  });

  it("replays a retry, and answers 422 for its key reused with another charge; nothing more is queued", async () => {
    const order = orderId();
    const k = key();
    const first = await post(app, url(order), charge, k);
    const before = await totalStreamLength(app);
    const retry = await post(app, url(order), charge, k);
    expect(retry.statusCode).toBe(202);
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    expect(retry.json().id).toBe(first.json().id);
    const reused = await post(app, url(order), { ...charge, amount: 999 }, k);
    expect(expectProblem(reused, 422, "idempotency_key_reused", "Idempotency-Key").existingId).toBe(
      first.json().id,
    );
    expect(await totalStreamLength(app)).toBe(before);
  });

  it("refuses a shopper (403), nobody (401) and a missing Idempotency-Key (400), enqueuing nothing", async () => {
    const before = await totalStreamLength(app);
    expectProblem(
      await post(app, url(orderId()), charge, { authorization: `Bearer ${shopper}`, ...key() }),
      403,
      "forbidden_caller",
      "Authorization",
    );
    expectProblem(
      await post(app, url(orderId()), charge, { authorization: "", ...key() }),
      401,
      "unauthorized",
    );
    expectProblem(await post(app, url(orderId()), charge), 400, "validation_error", "Idempotency-Key");
    expect(await totalStreamLength(app)).toBe(before);
  });

  it.each([
    ["provider", { provider: "Stripe" }],
    ["provider", { provider: "" }],
    ["reference", { reference: "" }],
    ["reference", { reference: "has space" }],
    ["reference", { reference: "x".repeat(201) }],
    ["amount", { amount: 0 }],
    ["amount", { amount: 1.5 }],
  ])("a bad %s is a 400 naming it, and nothing is enqueued", async (field, patch) => {
    const before = await totalStreamLength(app);
    expectProblem(
      await post(app, url(orderId()), { ...charge, ...patch }, key()),
      400,
      "validation_error",
      field,
    );
    expect(await totalStreamLength(app)).toBe(before);
  });

  it("takes only an order id in the path (400 naming orderId)", async () => {
    const before = await totalStreamLength(app);
    expectProblem(
      await post(app, url(newOperationId("payment", 3)), charge, key()),
      400,
      "validation_error",
      "orderId",
    );
    expect(await totalStreamLength(app)).toBe(before);
  });
});

describe("GET /v1/provider-payments/:id", () => {
  it("answers 404 for an unknown id, 400 for a malformed one, 403 for a shopper", async () => {
    expectProblem(
      await get(app, `/v1/provider-payments/${newOperationId("provider_payment", 5)}`),
      404,
      "not_found",
    );
    expectProblem(await get(app, "/v1/provider-payments/ppy_nope"), 400, "invalid_operation_id");
    const accepted = await post(app, url(orderId()), charge, key());
    expectProblem(
      await get(app, accepted.headers.location as string, { authorization: `Bearer ${shopper}` }),
      403,
      "forbidden_caller",
    );
  });
});

describe("WS /v1/operations/:id/ws on a provider payment", () => {
  it("sends its view to the shop's server, and refuses a shopper", async () => {
    await app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = app.server.address() as { port: number };
    const socketUrl = (id: string, token: string) =>
      withAccessToken(`ws://127.0.0.1:${port}/v1/operations/${id}/ws`, token);
    const order = orderId();
    const id = (await post(app, url(order), charge, key())).json().id as string;
    const socket = await openJsonSocket<{ type: string; operation?: Record<string, unknown> }>(
      socketUrl(id, env.serverKey),
    );
    const first = await socket.next((m) => m.operation !== undefined, "the provider payment's view");
    expect(first.operation).toMatchObject({ id, orderId: order, ...charge, status: "pending" });
    socket.close();
    const refused = await openJsonSocket<{ type: string }>(socketUrl(id, shopper));
    expect((await refused.closed).code).toBe(4403);
  });
});

describe("a refund naming a provider payment", () => {
  it("is refused 422 provider_payment_not_refundable: the shop refunds at its provider", async () => {
    const before = await totalStreamLength(app);
    const refused = await post(
      app,
      "/v1/refunds",
      { paymentId: newOperationId("provider_payment", 9) },
      key(),
    );
    expectProblem(refused, 422, "provider_payment_not_refundable", "paymentId");
    expect(await totalStreamLength(app)).toBe(before);
  });
});
