// With Redis unreachable nothing can be stored, so nothing may be accepted: 503 + Retry-After, never 202.
import { newOperationId } from "@floodgate/domain";
import {
  createTestEnvironment,
  startTcpProxy,
  type TcpProxy,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import {
  closedPort,
  expectProblem,
  get,
  post,
  prefixKeys,
  totalStreamLength,
} from "./support/intake-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;

beforeAll(async () => {
  const port = await closedPort();
  env = await createTestEnvironment("redis-unavailable", { env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
  app = await buildApp(env.config, { logger: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

function expectUnavailable(response: Awaited<ReturnType<typeof post>>) {
  expect(response.statusCode).not.toBe(202);
  const problem = expectProblem(response, 503, "service_unavailable");
  expect(problem.retryable).toBe(true);
  // No answer from Redis: the client cannot know whether a command it wrote ran, so the answer does not claim it.
  expect(problem.detail).toContain("may or may not have been stored");
  const retryAfter = response.headers["retry-after"];
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThan(0);
  expect(response.headers.location).toBeUndefined();
}

describe("with Redis unreachable", () => {
  it("answers a payment with 503 problem+json and Retry-After", async () => {
    expectUnavailable(await post(app, "/v1/payments", { userId: "down-1", amount: 100 }));
  });

  it("answers a payment with an Idempotency-Key with 503 too", async () => {
    expectUnavailable(
      await post(app, "/v1/payments", { userId: "down-2", amount: 100 }, { "idempotency-key": "k-1" }),
    );
  });

  it("answers a deposit with 503", async () => {
    expectUnavailable(await post(app, "/v1/wallets/down-3/deposits", { amount: 100 }));
  });

  it("answers concurrent requests with 503, never 202", async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(app, "/v1/payments", { userId: `down-many-${i}`, amount: 1 }),
      ),
    );
    for (const answer of answers) expectUnavailable(answer);
  });

  it("still refuses bad input with 400 rather than 503", async () => {
    const response = await post(app, "/v1/payments", { userId: "down-4", amount: 0 });
    expectProblem(response, 400, "validation_error", "amount");
  });

  it("reports itself not ready, naming Redis", async () => {
    const response = await get(app, "/readyz");
    expect(response.statusCode).toBe(503);
    expect(response.json().checks.redis).not.toBe("ok");
  });

  it("still answers /healthz (the process is alive)", async () => {
    expect((await get(app, "/healthz")).statusCode).toBe(200);
  });

  it("answers a status read with 503 too", async () => {
    expectUnavailable(await get(app, `/v1/payments/${newOperationId("payment", 1)}`));
  });
});

describe("with a Redis Cluster unreachable from the start", () => {
  // The cluster client has no slot map until a node answers: its commands fail before any reaches a node, with
  // errors of its own ("None of startup nodes is available"), and those are the store being away as much as a
  // closed connection is.
  let clusterEnv: TestEnvironment;
  let clusterApp: FastifyInstance;

  beforeAll(async () => {
    const port = await closedPort();
    clusterEnv = await createTestEnvironment("redis-cluster-unavailable", {
      env: { REDIS_URL: `redis+cluster://127.0.0.1:${port}` },
    });
    clusterApp = await buildApp(clusterEnv.config, { logger: false });
    await clusterApp.ready();
  });

  afterAll(async () => {
    await clusterApp?.close();
    await clusterEnv?.cleanup();
  });

  it("answers payments, deposits and status reads with 503 and Retry-After, never 500", async () => {
    const shop = { authorization: `Bearer ${clusterEnv.serverKey}` };
    expectUnavailable(await post(clusterApp, "/v1/payments", { userId: "cl-down-1", amount: 1 }, shop));
    expectUnavailable(
      await post(
        clusterApp,
        "/v1/payments",
        { userId: "cl-down-2", amount: 1 },
        { ...shop, "idempotency-key": "k" },
      ),
    );
    expectUnavailable(await post(clusterApp, "/v1/wallets/cl-down-3/deposits", { amount: 1 }, shop));
    expectUnavailable(await get(clusterApp, `/v1/payments/${newOperationId("payment", 1)}`, shop));
  });
});

describe("when Redis goes away after start", () => {
  let redisEnv: TestEnvironment;
  let proxy: TcpProxy;
  let proxied: FastifyInstance;
  /** The same Redis through a proxy the test can take down; `observer` looks at it directly. */
  let observer: FastifyInstance;
  /** The proxied app's config is derived from the environment's, so its requests name the key themselves. */
  const shop = () => ({ authorization: `Bearer ${redisEnv.serverKey}` });

  beforeAll(async () => {
    redisEnv = await createTestEnvironment("redis-goes-away");
    const redisUrl = new URL(redisEnv.config.redisUrl);
    proxy = await startTcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
    redisUrl.port = String(proxy.port);
    proxied = await buildApp({ ...redisEnv.config, redisUrl: redisUrl.toString() }, { logger: false });
    observer = await buildApp(redisEnv.config, { logger: false });
    await Promise.all([proxied.ready(), observer.ready()]);
  });

  afterAll(async () => {
    await proxied?.close();
    await observer?.close();
    await proxy?.close();
    await redisEnv?.cleanup();
  });

  it("answers 503 while it is away, stores nothing, and accepts again once it is back", async () => {
    expect((await post(proxied, "/v1/payments", { userId: "away-1", amount: 1 }, shop())).statusCode).toBe(
      202,
    );
    const streams = await totalStreamLength(observer);
    const keys = await prefixKeys(observer);

    await proxy.down();
    try {
      for (let i = 0; i < 3; i++) {
        expectUnavailable(await post(proxied, "/v1/payments", { userId: `away-${i}`, amount: 1 }, shop()));
      }
      expect(await totalStreamLength(observer)).toBe(streams);
      expect(await prefixKeys(observer)).toEqual(keys);
    } finally {
      await proxy.up();
    }

    // Refused attempts store nothing, so exactly one payment more once one is accepted.
    await expect
      .poll(
        async () =>
          (await post(proxied, "/v1/payments", { userId: "away-back", amount: 1 }, shop())).statusCode,
        {
          timeout: 20_000,
          interval: 100,
        },
      )
      .toBe(202);
    expect(await totalStreamLength(observer)).toBe(streams + 1);
  });
});
