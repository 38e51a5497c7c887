import { decodeOperationMessage, type MoneyOperationMessage, parseOperationId } from "@floodgate/domain";
import { bucketForUser } from "@floodgate/shard-router";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import {
  expectProblem,
  findStreamEntry,
  post,
  prefixKeys,
  statusKey,
  streamLengths,
  totalStreamLength,
} from "./support/intake-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;

beforeAll(async () => {
  env = await createTestEnvironment("payments-accept");
  app = await buildApp(env.config, { logger: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

describe("POST /v1/payments accepts", () => {
  it("answers 202 with the id and Location only once the payment is in its partition stream", async () => {
    const before = await streamLengths(app);
    const response = await post(app, "/v1/payments", { userId: "accept-1", amount: 12_500 });

    expect(response.statusCode).toBe(202);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    const body = response.json();
    expect(body).toEqual({ id: expect.stringMatching(/^pay_/), status: "pending" });
    expect(response.headers.location).toBe(`/v1/payments/${body.id}`);
    expect(parseOperationId(body.id)).toMatchObject({ kind: "payment", bucket: bucketForUser("accept-1") });

    const after = await streamLengths(app);
    const partition = app.queueKeys.partitionForUser("accept-1");
    expect(after[partition]).toBe(before[partition]! + 1);
    expect(after.reduce((a, b) => a + b, 0)).toBe(before.reduce((a, b) => a + b, 0) + 1);

    const entry = await findStreamEntry(app, body.id);
    expect(entry?.partition).toBe(partition);
    // The entry carries the body; the id beside it says the rest.
    const message = decodeOperationMessage(entry!.fields.m!, entry!.fields.id) as MoneyOperationMessage;
    expect(message).toMatchObject({
      v: 1,
      kind: "payment",
      id: body.id,
      userId: "accept-1",
      amount: 12_500,
      currency: "KRW",
    });
    expect(message.orderId).toBeUndefined();

    const status = await app.redis.hgetall(statusKey(app, body.id));
    expect(status.status).toBe("pending");
    expect(status.id).toBe(body.id);
    expect(decodeOperationMessage(status.message!, body.id)).toMatchObject({
      kind: "payment",
      userId: "accept-1",
      amount: 12_500,
      currency: "KRW",
    });
    // A pending status must outlive any backlog: no TTL until a worker finishes it.
    expect(await app.redis.ttl(statusKey(app, body.id))).toBe(-1);
  });

  it("gives every request its own id", async () => {
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => post(app, "/v1/payments", { userId: "accept-2", amount: 1 })),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(5).fill(202));
    expect(new Set(answers.map((a) => a.json().id)).size).toBe(5);
    for (const answer of answers) expect(await findStreamEntry(app, answer.json().id)).toBeDefined();
  });

  it("accepts the bounds of amount and userId, an explicit deployment currency and an orderId", async () => {
    const longUser = "u".repeat(64);
    const cases = [
      { userId: "A-z_0", amount: 1 },
      { userId: longUser, amount: 1_000_000_000_000 },
      { userId: "accept-3", amount: 7, currency: "KRW", orderId: "ord_01KAAAAAAAAAAAAAAAAAAAAAAA" },
    ];
    for (const body of cases) {
      const response = await post(app, "/v1/payments", body);
      expect(response.statusCode, response.body).toBe(202);
      const entry = await findStreamEntry(app, response.json().id);
      const message = decodeOperationMessage(entry!.fields.m!, entry!.fields.id) as MoneyOperationMessage;
      expect(message).toMatchObject({ userId: body.userId, amount: body.amount, currency: "KRW" });
      if (body.orderId) {
        expect(message.orderId).toBe(body.orderId);
        const status = await app.redis.hget(statusKey(app, response.json().id), "message");
        expect((decodeOperationMessage(status!, response.json().id) as MoneyOperationMessage).orderId).toBe(
          body.orderId,
        );
      }
    }
  });

  it("refuses a currency other than the deployment's with 422 naming the field, and writes nothing", async () => {
    const streams = await totalStreamLength(app);
    const keys = await prefixKeys(app);
    const response = await post(app, "/v1/payments", { userId: "accept-4", amount: 100, currency: "USD" });
    const problem = expectProblem(response, 422, "currency_mismatch", "currency");
    expect(problem.detail).toContain("KRW");
    expect(await totalStreamLength(app)).toBe(streams);
    expect(await prefixKeys(app)).toEqual(keys);
  });

  it("does not store an Idempotency-Key when a request is refused", async () => {
    const refused = await post(
      app,
      "/v1/payments",
      { userId: "accept-5", amount: 100, currency: "EUR" },
      { "idempotency-key": "refused-first" },
    );
    expect(refused.statusCode).toBe(422);
    const accepted = await post(
      app,
      "/v1/payments",
      { userId: "accept-5", amount: 100 },
      { "idempotency-key": "refused-first" },
    );
    expect(accepted.statusCode).toBe(202);
    expect(accepted.headers["idempotent-replayed"]).toBeUndefined();
  });
});
