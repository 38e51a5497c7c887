// POST /v1/refunds and GET /v1/refunds/:id through the real intake on the real Redis and Postgres: server key
// only, Idempotency-Key required, the refund queued in its payment's partition with an id carrying the
// payment's bucket; then a real worker decides each refund on the payment's shard.
import { decodeOperationMessage, newOperationId, parseOperationId } from "@floodgate/domain";
import {
  createTestEnvironment,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { requestFingerprint } from "../src/idempotency/request-fingerprint.ts";
import {
  expectProblem,
  findStreamEntry,
  get,
  post,
  totalStreamLength,
  waitUntil,
} from "./support/intake-test-kit.ts";
import { openJsonSocket, withAccessToken } from "./support/json-socket.ts";
import {
  type ContractDocument,
  documentedOperation,
  expectDocumentedAnswer,
  servedDocument,
} from "./support/openapi-contract.ts";

let env: TestEnvironment;
let app: FastifyInstance;
let worker: WorkerProcess | undefined;
let shopper: string;
let document: ContractDocument;
let keys = 0;
const key = () => ({ "idempotency-key": `refund-test-${++keys}` });

beforeAll(async () => {
  env = await createTestEnvironment("refunds");
  app = await buildApp(env.config, { logger: false });
  await app.ready();
  shopper = (await app.auth.customerTokens.mint("refund-shopper", 900)).token;
  document = await servedDocument(app);
});

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await env?.cleanup();
});

const settled = (location: string) =>
  waitUntil(
    () => get(app, location),
    (r) => r.statusCode === 200 && r.json().status !== "pending",
    `${location} to settle`,
  ).then((r) => r.json());

const paymentId = (userId = "refund-user") => newOperationId("payment", 7 + (userId.length % 5));

describe("POST /v1/refunds: acceptance", () => {
  it("answers 202 + Location with a refund id in the payment's bucket, queued in the payment's partition", async () => {
    const payment = paymentId();
    const before = await totalStreamLength(app);
    const response = await post(
      app,
      "/v1/refunds",
      { paymentId: payment, amount: 300, reason: "damaged" },
      key(),
    );
    expect(response.statusCode, response.body).toBe(202);
    const body = response.json();
    expect(body).toEqual({ id: expect.stringMatching(/^rfd_/), status: "pending" });
    expect(response.headers.location).toBe(`/v1/refunds/${body.id}`);
    expect(parseOperationId(body.id)?.bucket).toBe(parseOperationId(payment)?.bucket);
    expect(app.queueKeys.partitionForOperation(body.id)).toBe(app.queueKeys.partitionForOperation(payment));
    expect(await totalStreamLength(app)).toBe(before + 1);
    const entry = await findStreamEntry(app, body.id);
    const message = decodeOperationMessage(entry!.fields.m!, entry!.fields.id);
    expect(message).toMatchObject({ kind: "refund", paymentId: payment, amount: 300, reason: "damaged" });
    expect(message).not.toHaveProperty("userId");
    expect((await get(app, `/v1/refunds/${body.id}`)).json()).toMatchObject({
      id: body.id,
      paymentId: payment,
      amount: 300,
      reason: "damaged",
      restock: false,
      status: "pending",
      currency: "KRW",
    });
  });

  it("refuses a shopper (403) and nobody (401), and enqueues nothing", async () => {
    const before = await totalStreamLength(app);
    const asShopper = { authorization: `Bearer ${shopper}`, ...key() };
    const refused = await post(app, "/v1/refunds", { paymentId: paymentId() }, asShopper);
    // The credential is what is at fault: errors[] names it, as README promises wherever a field is at fault.
    const problem = expectProblem(refused, 403, "forbidden_caller", "Authorization");
    expect(problem.errors).toEqual([{ field: "Authorization", detail: problem.detail }]);
    expectDocumentedAnswer(document, "createRefund", refused);
    expectProblem(
      await post(app, "/v1/refunds", { paymentId: paymentId() }, { authorization: "", ...key() }),
      401,
      "unauthorized",
    );
    const accepted = await post(app, "/v1/refunds", { paymentId: paymentId() }, key());
    expect(accepted.statusCode).toBe(202);
    expectProblem(
      await get(app, accepted.headers.location as string, { authorization: `Bearer ${shopper}` }),
      403,
      "forbidden_caller",
    );
    expect(await totalStreamLength(app)).toBe(before + 1);
  });

  it.each([
    ["amount", { amount: 0 }],
    ["amount", { amount: -5 }],
    ["amount", { amount: 1.5 }],
    ["amount", { amount: "10" }],
    ["paymentId", { paymentId: newOperationId("deposit", 3) }],
    ["paymentId", { paymentId: "pay_nope" }],
    ["reason", { reason: "x".repeat(501) }],
    ["restock", { restock: "yes" }],
  ])("a bad %s is a 400 naming it, and nothing is enqueued", async (field, patch) => {
    const before = await totalStreamLength(app);
    const response = await post(app, "/v1/refunds", { paymentId: paymentId(), ...patch }, key());
    expectProblem(response, 400, "validation_error", field);
    expect(await totalStreamLength(app)).toBe(before);
  });

  it("requires an Idempotency-Key (400 naming it), and nothing is enqueued", async () => {
    const before = await totalStreamLength(app);
    const response = await post(app, "/v1/refunds", { paymentId: paymentId() });
    expectProblem(response, 400, "validation_error", "Idempotency-Key");
    expect(await totalStreamLength(app)).toBe(before);
    expectDocumentedAnswer(document, "createRefund", response);
  });

  it("is documented as requiring the Idempotency-Key", () => {
    const header = documentedOperation(document, "createRefund").parameters?.find(
      (parameter) => parameter.in === "header" && parameter.name === "Idempotency-Key",
    );
    expect(header?.required).toBe(true);
    // The routes that take a key without requiring it still say so.
    const optional = documentedOperation(document, "createPayment").parameters?.find(
      (parameter) => parameter.in === "header" && parameter.name === "Idempotency-Key",
    );
    expect(optional?.required ?? false).toBe(false);
  });

  it("replays an Idempotency-Key's first answer, refuses it with another body, scopes it by payment", async () => {
    const payment = paymentId();
    const before = await totalStreamLength(app);
    const headers = { "idempotency-key": "refund-replay" };
    const first = await post(app, "/v1/refunds", { paymentId: payment, amount: 10 }, headers);
    const again = await post(app, "/v1/refunds", { paymentId: payment, amount: 10 }, headers);
    expect(first.statusCode).toBe(202);
    expect(again.statusCode).toBe(202);
    expect(again.json().id).toBe(first.json().id);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    const other = await post(app, "/v1/refunds", { paymentId: payment, amount: 11 }, headers);
    expect(expectProblem(other, 422, "idempotency_key_reused", "Idempotency-Key").existingId).toBe(
      first.json().id,
    );
    // Another payment's refund with the same key is another refund.
    const elsewhere = await post(app, "/v1/refunds", { paymentId: paymentId("other"), amount: 10 }, headers);
    expect(elsewhere.statusCode).toBe(202);
    expect(elsewhere.json().id).not.toBe(first.json().id);
    expect(await totalStreamLength(app)).toBe(before + 2);
  });
});

describe("POST /v1/refunds: Idempotency-Keys apart from shoppers'", () => {
  // A payment id in the partition of the user named `refund`: the only place where the two kinds of keys could
  // meet (keys may hold `:`, and `refund` is a valid user id).
  const paymentBesideUserRefund = () => {
    const partition = app.queueKeys.partitionForUser("refund");
    const bucket = Array.from({ length: 1024 }, (_, b) => b).find(
      (b) => app.queueKeys.partitionForBucket(b) === partition,
    )!;
    return newOperationId("payment", bucket);
  };

  it("a user named refund paying with key <paymentId>:K leaves the shop's refund with key K alone, and back", async () => {
    const payment = paymentBesideUserRefund();
    const paid = await post(
      app,
      "/v1/payments",
      { userId: "refund", amount: 100 },
      {
        "idempotency-key": `${payment}:K`,
      },
    );
    expect(paid.statusCode, paid.body).toBe(202);
    const refund = await post(
      app,
      "/v1/refunds",
      { paymentId: payment, amount: 10 },
      { "idempotency-key": "K" },
    );
    expect(refund.statusCode, refund.body).toBe(202);
    expect(refund.json().id).toMatch(/^rfd_/);

    const other = paymentBesideUserRefund();
    const first = await post(
      app,
      "/v1/refunds",
      { paymentId: other, amount: 10 },
      { "idempotency-key": "K2" },
    );
    expect(first.statusCode, first.body).toBe(202);
    const paidAfter = await post(
      app,
      "/v1/payments",
      { userId: "refund", amount: 100 },
      {
        "idempotency-key": `${other}:K2`,
      },
    );
    expect(paidAfter.statusCode, paidAfter.body).toBe(202);
    expect(paidAfter.json().id).toMatch(/^pay_/);
  });

  it("replays a refund accepted before the upgrade, whose key is still stored under the old layout", async () => {
    const payment = paymentId();
    const body = { paymentId: payment, amount: 25 };
    // What the release before last stored: the pending status at `{p}:op:<id>`, and the key's record at
    // `{p}:idem:refund:<paymentId>:<key>` -> "<fingerprint> <id>". Made from what this release stored.
    const accepted = await post(app, "/v1/refunds", body, { "idempotency-key": "before-upgrade" });
    expect(accepted.statusCode).toBe(202);
    const id = accepted.json().id as string;
    const partition = app.queueKeys.partitionForOperation(payment)!;
    const status = app.queueKeys.status(partition, id);
    // The whole fingerprint, as that release kept it (the status hash keeps its first 22 characters).
    const fingerprint = requestFingerprint("refund", payment, "25", app.config.currency, "", "false");
    expect(fingerprint.startsWith((await app.redis.hget(status, "fp"))!)).toBe(true);
    const former = app.queueKeys.formerStatus(partition, id);
    await app.redis.rename(status, former);
    await app.redis.hdel(former, "fp", "id");
    const legacy = app.queueKeys.idempotency(partition, `refund:${payment}`, "before-upgrade");
    await app.redis.set(legacy, `${fingerprint} ${id}`);
    // Its status still reads where it was.
    expect((await get(app, `/v1/refunds/${id}`)).json()).toMatchObject({ id, status: "pending" });
    const before = await totalStreamLength(app);
    const retried = await post(app, "/v1/refunds", body, { "idempotency-key": "before-upgrade" });
    expect(retried.statusCode, retried.body).toBe(202);
    expect(retried.json().id).toBe(accepted.json().id);
    expect(retried.headers["idempotent-replayed"]).toBe("true");
    const changed = await post(
      app,
      "/v1/refunds",
      { ...body, amount: 26 },
      { "idempotency-key": "before-upgrade" },
    );
    expect(expectProblem(changed, 422, "idempotency_key_reused", "Idempotency-Key").existingId).toBe(
      accepted.json().id,
    );
    expect(await totalStreamLength(app)).toBe(before);
  });
});

describe("refunds applied by a worker", () => {
  it("gives back partial and full refunds into the wallet, and refuses what the shard says no to", async () => {
    const user = "refund-applied";
    const deposit = await post(app, `/v1/wallets/${user}/deposits`, { amount: 10_000 });
    const pay = await post(app, "/v1/payments", { userId: user, amount: 4_000 });
    const poor = await post(app, "/v1/payments", { userId: "refund-poor", amount: 4_000 });
    worker ??= await startWorkerProcess(env.config);
    expect((await settled(deposit.headers.location as string)).status).toBe("succeeded");
    expect((await settled(pay.headers.location as string)).status).toBe("succeeded");
    expect((await settled(poor.headers.location as string)).status).toBe("failed");
    const payId = pay.json().id as string;

    const partial = await post(
      app,
      "/v1/refunds",
      { paymentId: payId, amount: 1_500, reason: "late" },
      key(),
    );
    expect(await settled(partial.headers.location as string)).toMatchObject({
      status: "succeeded",
      amount: 1_500,
      completedAt: expect.any(String),
    });
    const rest = await post(app, "/v1/refunds", { paymentId: payId }, key());
    expect(await settled(rest.headers.location as string)).toMatchObject({
      status: "succeeded",
      amount: 2_500,
    });
    const more = await post(app, "/v1/refunds", { paymentId: payId, amount: 1 }, key());
    expect(await settled(more.headers.location as string)).toMatchObject({
      status: "failed",
      failureReason: "refund_exceeds_payment",
    });
    const none = await post(app, "/v1/refunds", { paymentId: payId }, key());
    expect(await settled(none.headers.location as string)).toMatchObject({
      status: "failed",
      failureReason: "refund_exceeds_payment",
    });
    const failedPayment = await post(app, "/v1/refunds", { paymentId: poor.json().id }, key());
    expect(await settled(failedPayment.headers.location as string)).toMatchObject({
      status: "failed",
      failureReason: "payment_not_succeeded",
    });
    // An id dated long ago: a payment on its way to the shard would be waited for.
    const ghost = newOperationId("payment", 3, Date.now() - 600_000);
    const unknown = await post(app, "/v1/refunds", { paymentId: ghost }, key());
    expect(await settled(unknown.headers.location as string)).toMatchObject({
      status: "failed",
      failureReason: "payment_not_found",
    });
    // Restock needs an order: a payment without one cannot give units back.
    const restock = await post(app, "/v1/refunds", { paymentId: payId, restock: true }, key());
    expect((await settled(restock.headers.location as string)).status).toBe("failed");

    expect((await get(app, `/v1/wallets/${user}`)).json().balance).toBe(10_000);
    const row = await app.shards
      .forBucket(parseOperationId(payId)!.bucket)
      .selectFrom("payments")
      .select(["refunded", "amount"])
      .where("id", "=", payId)
      .executeTakeFirstOrThrow();
    expect(Number(row.refunded)).toBe(4_000);
  });

  it("follows a refund on its operation socket to its final status (server key only)", async () => {
    await app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = app.server.address() as { port: number };
    const socketUrl = (id: string, token: string) =>
      withAccessToken(`ws://127.0.0.1:${port}/v1/operations/${id}/ws`, token);
    const deposit = await post(app, "/v1/wallets/refund-socket/deposits", { amount: 900 });
    await settled(deposit.headers.location as string);
    const pay = await post(app, "/v1/payments", { userId: "refund-socket", amount: 900 });
    await settled(pay.headers.location as string);
    const accepted = await post(app, "/v1/refunds", { paymentId: pay.json().id, amount: 400 }, key());
    const id = accepted.json().id as string;
    const socket = await openJsonSocket<{ type: string; operation?: Record<string, unknown> }>(
      socketUrl(id, env.serverKey),
    );
    const final = await socket.next(
      (m) => m.operation?.status === "succeeded",
      "the refund's final status",
      20_000,
    );
    expect(final.operation).toMatchObject({ id, paymentId: pay.json().id, amount: 400, status: "succeeded" });
    expect((await socket.closed).code).toBe(1000);
    const refused = await openJsonSocket<{ type: string }>(socketUrl(id, shopper));
    expect((await refused.closed).code).toBe(4403);
  });

  it("explains each refusal at its /problems/<code> page", async () => {
    for (const [slug, status] of [
      ["refund-exceeds-payment", 409],
      ["payment-not-succeeded", 409],
      ["payment-not-found", 404],
      ["restock-not-possible", 409],
    ] as const) {
      const page = await get(app, `/problems/${slug}`, { accept: "application/json" });
      expect(page.statusCode, slug).toBe(200);
      expect(page.json()).toMatchObject({ code: slug.replaceAll("-", "_"), status, retryable: false });
      expect(page.json().guidance.length).toBeGreaterThan(20);
    }
  });

  it("answers 404 for an unknown refund id and 400 for a malformed one", async () => {
    expectProblem(await get(app, `/v1/refunds/${newOperationId("refund", 1)}`), 404, "not_found", "id");
    expectProblem(await get(app, "/v1/refunds/nope"), 400, "invalid_operation_id", "id");
    expectProblem(await get(app, `/v1/refunds/${newOperationId("payment", 1)}`), 404, "not_found", "id");
  });
});
