// A store that fails under a request is a 503 + Retry-After naming that store, decided by the error's type
// (ioredis' MaxRetriesPerRequestError, a connection error's code, a Postgres SQLSTATE), never by its text.
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { closedPort, expectProblem, get, post } from "./support/intake-test-kit.ts";
import { type PrivateRedis, startPrivateRedis } from "./support/private-redis.ts";

let env: TestEnvironment;
let redis: PrivateRedis;
let app: FastifyInstance;
/** Same deployment, every Postgres URL pointing at a port nothing listens on. */
let noDatabase: FastifyInstance;

beforeAll(async () => {
  redis = await startPrivateRedis(["--enable-debug-command", "yes"]);
  env = await createTestEnvironment("store-errors", { env: { REDIS_URL: redis.url } });
  app = await buildApp(env.config, { logger: false });
  const port = await closedPort();
  const away = (url: string) => {
    const moved = new URL(url);
    moved.port = String(port);
    return moved.toString();
  };
  noDatabase = await buildApp(
    { ...env.config, shardUrls: env.config.shardUrls.map(away) },
    { logger: false },
  );
  await Promise.all([app.ready(), noDatabase.ready()]);
});

afterAll(async () => {
  await noDatabase?.close();
  await app?.close();
  await env?.cleanup();
  await redis?.kill();
});

const shop = () => ({ authorization: `Bearer ${env.serverKey}` });

function expectUnavailable(response: Awaited<ReturnType<typeof post>>, store: RegExp) {
  const problem = expectProblem(response, 503, "service_unavailable");
  expect(problem.retryable).toBe(true);
  expect(Number(response.headers["retry-after"])).toBeGreaterThan(0);
  expect(problem.detail).toMatch(store);
  return problem;
}

describe("a Postgres that refuses connections", () => {
  it("answers a wallet read 503 naming the shard's database, not the queue", async () => {
    const response = await get(noDatabase, "/v1/wallets/store-errors-1", shop());
    const problem = expectUnavailable(response, /shard \d+/);
    expect(problem.detail).not.toMatch(/queue/i);
  });
});

describe("Redis killed under a request", () => {
  it("answers the request in flight 503 with Retry-After, not 500", async () => {
    expect((await post(app, "/v1/payments", { userId: "store-errors-2", amount: 1 })).statusCode).toBe(202);
    // Redis busy for 5 s, then killed: the payment's command is on the wire when the connection dies.
    void redis.client.call("DEBUG", "SLEEP", "5").catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 100));
    const inFlight = post(app, "/v1/payments", { userId: "store-errors-3", amount: 1 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await redis.kill();
    expectUnavailable(await inFlight, /queue/);
  });
});
