// GET /v1/payments/:id and /v1/deposits/:id: Redis while the status is recent, the owning shard after its TTL.
import { newOperationId, parseOperationId } from "@floodgate/domain";
import { bucketForUser } from "@floodgate/shard-router";
import {
  createTestEnvironment,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { expectProblem, get, post, statusKey, waitUntil } from "./support/intake-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  env = await createTestEnvironment("operation-reads");
  app = await buildApp(env.config, { logger: false });
  await app.ready();
});

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await env?.cleanup();
});

// Well-formed; no such order exists, which GET of a pending payment does not need to know.
const ORDER_ID = "ord_01KAAAAAAAAAAAAAAAAAAAAAAA";

const finished = (response: Awaited<ReturnType<typeof get>>) =>
  response.statusCode === 200 && response.json().status !== "pending";

describe("GET /v1/payments/:id", () => {
  it("answers pending right after acceptance, from Redis", async () => {
    const accepted = await post(app, "/v1/payments", { userId: "read-1", amount: 250, orderId: ORDER_ID });
    expect(accepted.statusCode).toBe(202);
    const { id } = accepted.json();
    const response = await get(app, accepted.headers.location as string);
    expect(response.statusCode).toBe(200);
    const view = response.json();
    expect(view).toEqual({
      id,
      userId: "read-1",
      amount: 250,
      currency: "KRW",
      orderId: ORDER_ID,
      status: "pending",
      createdAt: expect.any(String),
    });
    expect(new Date(view.createdAt).getTime()).toBe(parseOperationId(id)!.createdAtMs);
  });

  it("answers 404 for a well-formed id nobody issued", async () => {
    const id = newOperationId("payment", bucketForUser("nobody"));
    expectProblem(await get(app, `/v1/payments/${id}`), 404, "not_found", "id");
  });

  it.each([
    ["not an id", "nope"],
    ["a lowercase id", "pay_01k80jpzkw9chtkttmjt7faz06"],
    ["a too-short id", "pay_01M80JPZKW9CHTKTTMJT7FAZ0"],
    ["an id with a forbidden letter", "pay_01M80JPZKW9CHTKTTMJT7FAZ0U"],
    ["an unknown kind", "wdr_01M80JPZKW9CHTKTTMJT7FAZ06"],
    ["a very long id", `pay_${"0".repeat(100)}`],
  ])("answers 400 naming the id for %s", async (_, id) => {
    const response = await get(app, `/v1/payments/${id}`);
    expectProblem(response, 400, response.json().code, "id");
    expect(["invalid_operation_id", "validation_error"]).toContain(response.json().code);
  });

  it.each([
    ["an id longer than the router takes", `pay_${"0".repeat(1000)}`],
    ["a broken percent-encoding", "pay_%E0%A4%A"],
  ])("answers 400 problem+json for %s", async (_, id) => {
    expectProblem(await get(app, `/v1/payments/${id}`), 400, "validation_error", "path");
  });

  it("answers 404 for a deposit's id, and /v1/deposits answers 404 for a payment's", async () => {
    const deposit = await post(app, "/v1/wallets/read-2/deposits", { amount: 10 });
    const payment = await post(app, "/v1/payments", { userId: "read-2", amount: 10 });
    expectProblem(await get(app, `/v1/payments/${deposit.json().id}`), 404, "not_found", "id");
    expectProblem(await get(app, `/v1/deposits/${payment.json().id}`), 404, "not_found", "id");
    expect((await get(app, `/v1/deposits/${deposit.json().id}`)).json()).toMatchObject({
      id: deposit.json().id,
      userId: "read-2",
      amount: 10,
      status: "pending",
    });
  });
});

describe("after a worker applied the operation and the Redis status expired", () => {
  it("serves payments and deposits from the owning shard", async () => {
    const deposit = await post(app, "/v1/wallets/read-3/deposits", { amount: 1000 });
    const paid = await post(app, "/v1/payments", { userId: "read-3", amount: 400 });
    const refused = await post(app, "/v1/payments", { userId: "read-3", amount: 5000 });
    expect([deposit, paid, refused].map((r) => r.statusCode)).toEqual([202, 202, 202]);

    worker = await startWorkerProcess(env.config);
    const urls = [deposit, paid, refused].map((r) => r.headers.location as string);
    const fromRedis = [];
    for (const url of urls)
      fromRedis.push((await waitUntil(() => get(app, url), finished, `${url} final`)).json());
    expect(fromRedis.map((v) => v.status)).toEqual(["succeeded", "succeeded", "failed"]);
    expect(fromRedis[2].failureReason).toBe("insufficient_funds");

    // Simulate the status TTL: the next read can only come from the shard.
    for (const url of urls) {
      const id = url.split("/").pop()!;
      expect(await app.redis.del(statusKey(app, id))).toBe(1);
    }
    const fromShard = [];
    for (const url of urls) {
      const response = await get(app, url);
      expect(response.statusCode, response.body).toBe(200);
      fromShard.push(response.json());
    }
    for (const url of urls) expect(await app.redis.exists(statusKey(app, url.split("/").pop()!))).toBe(0);

    expect(fromShard[0]).toEqual({
      id: deposit.json().id,
      userId: "read-3",
      amount: 1000,
      currency: "KRW",
      status: "succeeded",
      createdAt: fromRedis[0].createdAt,
      completedAt: expect.any(String),
    });
    expect(fromShard[1]).toEqual({
      id: paid.json().id,
      userId: "read-3",
      amount: 400,
      currency: "KRW",
      status: "succeeded",
      createdAt: fromRedis[1].createdAt,
      completedAt: expect.any(String),
    });
    expect(fromShard[2]).toMatchObject({
      id: refused.json().id,
      amount: 5000,
      status: "failed",
      failureReason: "insufficient_funds",
      createdAt: fromRedis[2].createdAt,
    });
    for (const view of fromShard) {
      expect(Date.parse(view.completedAt)).toBeGreaterThanOrEqual(Date.parse(view.createdAt));
    }

    // The rows really are on the shard the id names.
    const shard = app.shards.forBucket(parseOperationId(paid.json().id)!.bucket);
    const row = await shard
      .selectFrom("payments")
      .selectAll()
      .where("id", "=", paid.json().id)
      .executeTakeFirst();
    expect(row).toMatchObject({ user_id: "read-3", amount: 400, status: "succeeded", order_id: null });
  });

  it("serves a row inserted directly into the owning shard", async () => {
    const id = newOperationId("payment", bucketForUser("read-4"), Date.parse("2026-01-02T03:04:05.678Z"));
    await app.shards
      .forBucket(parseOperationId(id)!.bucket)
      .insertInto("payments")
      .values({
        id,
        user_id: "read-4",
        amount: 77,
        currency: "KRW",
        status: "failed",
        failure_reason: "insufficient_funds",
        created_at: "2026-01-02T03:04:05.678Z",
        completed_at: "2026-01-02T03:04:06.000Z",
        order_id: null,
      })
      .execute();
    const response = await get(app, `/v1/payments/${id}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      id,
      userId: "read-4",
      amount: 77,
      currency: "KRW",
      status: "failed",
      failureReason: "insufficient_funds",
      createdAt: "2026-01-02T03:04:05.678Z",
      completedAt: "2026-01-02T03:04:06.000Z",
    });
  });
});
