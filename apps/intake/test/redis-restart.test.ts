// Redis restarted empty (no persistence): the accepted backlog is gone with it (README says what a 202 survives
// under each setting), but the intake must not stay stuck: the backpressure the lost backlog caused ends, /readyz's
// report of it follows, and once a worker drains again what is accepted after the restart is applied.
import {
  createTestEnvironment,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { expectProblem, get, post, waitUntil } from "./support/intake-test-kit.ts";
import { type PrivateRedis, startPrivateRedis } from "./support/private-redis.ts";

let redis: PrivateRedis;
let env: TestEnvironment;
let app: FastifyInstance;
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  redis = await startPrivateRedis([]);
  env = await createTestEnvironment("redis-restart", {
    env: { REDIS_URL: redis.url, BACKPRESSURE_SECONDS: "1" },
  });
  app = await buildApp(env.config, { logger: false });
  await app.ready();
});

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await env?.cleanup();
  await redis?.stop();
});

const deposit = (userId: string) => post(app, `/v1/wallets/${userId}/deposits`, { amount: 10 });

describe("Redis restarted empty", () => {
  it("ends the backpressure of the lost backlog, /readyz follows, and a draining worker applies what comes after", async () => {
    // Above the backlog floor with no worker: backpressure, which /readyz reports but does not fail on.
    for (let i = 0; i < 1100; i++) expect((await deposit(`restart-${i % 50}`)).statusCode).toBe(202);
    expectProblem(
      await waitUntil(
        () => deposit("one-more"),
        (r) => r.statusCode === 503,
        "backpressure",
      ),
      503,
      "overloaded",
    );
    const stuck = await get(app, "/readyz");
    expect(stuck.statusCode).toBe(200);
    expect(stuck.json().workers).toMatchObject({ backpressure: true, drainSeconds: null });

    await redis.restartEmpty();

    await waitUntil(
      async () => {
        const response = await get(app, "/readyz");
        return { status: response.statusCode, backpressure: response.json().workers.backpressure };
      },
      (ready) => ready.status === 200 && ready.backpressure === false,
      "/readyz after the restart",
      400,
    );
    const accepted = await waitUntil(
      () => deposit("after-restart"),
      (r) => r.statusCode === 202,
      "a deposit accepted after the restart",
      400,
    );
    worker = await startWorkerProcess(env.config);
    const { id } = accepted.json() as { id: string };
    await waitUntil(
      async () => (await get(app, `/v1/deposits/${id}`)).json().status,
      (status) => status === "succeeded",
      "the deposit accepted after the restart to be applied",
      400,
    );
    expect((await get(app, "/readyz")).statusCode).toBe(200);
  });
});
