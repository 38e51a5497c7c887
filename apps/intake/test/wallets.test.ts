// Deposits take the payments' pipeline; a real worker applies both, and GET /v1/wallets reads the shard.
import { decodeOperationMessage } from "@floodgate/domain";
import {
  createTestEnvironment,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import {
  expectProblem,
  findStreamEntry,
  get,
  post,
  statusKey,
  totalStreamLength,
  waitUntil,
} from "./support/intake-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  env = await createTestEnvironment("wallets");
  app = await buildApp(env.config, { logger: false });
  await app.ready();
});

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await env?.cleanup();
});

const balanceOf = async (userId: string) => {
  const response = await get(app, `/v1/wallets/${userId}`);
  expect(response.statusCode).toBe(200);
  return response.json();
};

const settled = (location: string) =>
  waitUntil(
    () => get(app, location),
    (r) => r.statusCode === 200 && r.json().status !== "pending",
    `${location} to settle`,
  ).then((r) => r.json());

describe("POST /v1/wallets/:userId/deposits", () => {
  it("answers 202 + Location /v1/deposits/{id} once the deposit is in a stream", async () => {
    const before = await totalStreamLength(app);
    const response = await post(app, "/v1/wallets/wallet-1/deposits", { amount: 3000 });
    expect(response.statusCode).toBe(202);
    const body = response.json();
    expect(body).toEqual({ id: expect.stringMatching(/^dep_/), status: "pending" });
    expect(response.headers.location).toBe(`/v1/deposits/${body.id}`);
    expect(await totalStreamLength(app)).toBe(before + 1);
    const entry = await findStreamEntry(app, body.id);
    expect(decodeOperationMessage(entry!.fields.m!, entry!.fields.id)).toMatchObject({
      kind: "deposit",
      id: body.id,
      userId: "wallet-1",
      amount: 3000,
      currency: "KRW",
    });
    expect(await app.redis.hget(statusKey(app, body.id), "status")).toBe("pending");
    expect((await get(app, response.headers.location as string)).json()).toMatchObject({
      id: body.id,
      userId: "wallet-1",
      amount: 3000,
      currency: "KRW",
      status: "pending",
    });
  });

  it("honours Idempotency-Key like payments do", async () => {
    const before = await totalStreamLength(app);
    const first = await post(
      app,
      "/v1/wallets/wallet-2/deposits",
      { amount: 50 },
      { "idempotency-key": "dep-1" },
    );
    const again = await post(
      app,
      "/v1/wallets/wallet-2/deposits",
      { amount: 50 },
      { "idempotency-key": "dep-1" },
    );
    expect(first.statusCode).toBe(202);
    expect(again.statusCode).toBe(202);
    expect(again.json().id).toBe(first.json().id);
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    const other = await post(
      app,
      "/v1/wallets/wallet-2/deposits",
      { amount: 51 },
      { "idempotency-key": "dep-1" },
    );
    expect(expectProblem(other, 422, "idempotency_key_reused", "Idempotency-Key").existingId).toBe(
      first.json().id,
    );
    // The same key on a payment is a different request, not a replay.
    const payment = await post(
      app,
      "/v1/payments",
      { userId: "wallet-2", amount: 50 },
      { "idempotency-key": "dep-1" },
    );
    expectProblem(payment, 422, "idempotency_key_reused", "Idempotency-Key");
    expect(await totalStreamLength(app)).toBe(before + 1);
  });
});

describe("GET /v1/wallets/:userId", () => {
  it("answers 0 in the deployment currency for a user never seen", async () => {
    expect(await balanceOf("wallet-unknown")).toEqual({
      userId: "wallet-unknown",
      balance: 0,
      currency: "KRW",
    });
  });

  it("refuses a malformed userId with a 400 naming it", async () => {
    expectProblem(await get(app, `/v1/wallets/${"u".repeat(65)}`), 400, "validation_error", "userId");
    expectProblem(await get(app, "/v1/wallets/a%20b"), 400, "validation_error", "userId");
  });

  it("shows deposits and payments once a worker applied them; a payment over the balance fails and changes nothing", async () => {
    const deposits = [
      await post(app, "/v1/wallets/wallet-3/deposits", { amount: 10_000 }),
      await post(app, "/v1/wallets/wallet-3/deposits", { amount: 5_000 }),
    ];
    const payment = await post(app, "/v1/payments", { userId: "wallet-3", amount: 4_000 });
    const tooBig = await post(app, "/v1/payments", { userId: "wallet-3", amount: 11_001 });
    // Another user's traffic does not leak into this wallet.
    const neighbour = await post(app, "/v1/wallets/wallet-4/deposits", { amount: 7 });
    for (const r of [...deposits, payment, tooBig, neighbour]) expect(r.statusCode).toBe(202);
    // Accepted is not applied: the balance moves only when a worker commits.
    expect((await balanceOf("wallet-3")).balance).toBe(0);

    worker = await startWorkerProcess(env.config);
    for (const r of deposits) expect((await settled(r.headers.location as string)).status).toBe("succeeded");
    expect(await settled(payment.headers.location as string)).toMatchObject({
      status: "succeeded",
      completedAt: expect.any(String),
    });
    const failed = await settled(tooBig.headers.location as string);
    expect(failed).toMatchObject({ status: "failed", failureReason: "insufficient_funds", amount: 11_001 });
    await settled(neighbour.headers.location as string);

    expect(await balanceOf("wallet-3")).toEqual({ userId: "wallet-3", balance: 11_000, currency: "KRW" });
    expect((await balanceOf("wallet-4")).balance).toBe(7);

    // An exact-balance payment empties the wallet; the next one fails.
    const exact = await post(app, "/v1/payments", { userId: "wallet-3", amount: 11_000 });
    expect((await settled(exact.headers.location as string)).status).toBe("succeeded");
    const one = await post(app, "/v1/payments", { userId: "wallet-3", amount: 1 });
    expect(await settled(one.headers.location as string)).toMatchObject({
      status: "failed",
      failureReason: "insufficient_funds",
    });
    expect((await balanceOf("wallet-3")).balance).toBe(0);
  });
});
