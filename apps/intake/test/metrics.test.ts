// /metrics in Prometheus text, and the intake's budget made visible: one Redis round trip per accepted request.
import { MAX_REQUESTS_PER_CALL } from "@floodgate/queue";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { get, metricValue, post } from "./support/intake-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;

beforeAll(async () => {
  // Few partitions keep the expected stream_length series short to list.
  env = await createTestEnvironment("metrics", { env: { STREAM_PARTITIONS: "4" } });
  app = await buildApp(env.config, { logger: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

const scrape = async () => {
  const response = await get(app, "/metrics");
  expect(response.statusCode).toBe(200);
  expect(response.headers["content-type"]).toMatch(/^text\/plain/);
  return response.body;
};
const redisCommands = async () => metricValue(await scrape(), "floodgate_intake_redis_commands_total");

describe("GET /metrics", () => {
  it("serves Prometheus text with the request, Redis and stream series", async () => {
    expect((await post(app, "/v1/payments", { userId: "metrics-0", amount: 1 })).statusCode).toBe(202);
    const text = await scrape();
    for (const name of [
      "floodgate_http_request_duration_seconds",
      "floodgate_intake_redis_commands_total",
      "floodgate_stream_length",
    ]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
    expect(
      metricValue(text, "floodgate_http_request_duration_seconds_count", {
        method: "POST",
        route: "/v1/payments",
        status: "202",
      }),
    ).toBe(1);
    const partition = app.queueKeys.partitionForUser("metrics-0");
    for (let p = 0; p < 4; p++) {
      const expected = p === partition ? 1 : 0;
      expect(metricValue(text, "floodgate_stream_length", { partition: String(p) })).toBe(expected);
    }
  });

  it("counts refused requests by status", async () => {
    await post(app, "/v1/payments", { userId: "metrics-1", amount: 0 });
    await post(app, "/v1/payments", { userId: "metrics-1", amount: 0 });
    const count = metricValue(await scrape(), "floodgate_http_request_duration_seconds_count", {
      method: "POST",
      route: "/v1/payments",
      status: "400",
    });
    expect(count).toBe(2);
  });

  it("shows one Redis command per accepted payment at most, one each when they come one at a time, however often it is scraped", async () => {
    // Warm-up: the first script call of a connection may need to load the script.
    expect((await post(app, "/v1/payments", { userId: "metrics-2", amount: 1 })).statusCode).toBe(202);
    const start = await redisCommands();
    expect(await redisCommands()).toBe(start); // a scrape is not Redis traffic of the request path

    for (let i = 0; i < 5; i++) {
      const response = await post(app, "/v1/wallets/metrics-3/deposits", { amount: 1 });
      expect(response.statusCode).toBe(202);
    }
    expect((await redisCommands()) - start).toBe(5);

    // Together, they share calls (packages/queue enqueue-batches.ts: those of one turn, up to
    // MAX_REQUESTS_PER_CALL a call, per partition on a cluster): never more than one each.
    const n = 25;
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        post(app, "/v1/payments", { userId: `metrics-u${i}`, amount: 10 + i }),
      ),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(n).fill(202));
    const together = (await redisCommands()) - start - 5;
    expect(together).toBeGreaterThanOrEqual(Math.ceil(n / MAX_REQUESTS_PER_CALL));
    expect(together).toBeLessThanOrEqual(n);
  });

  it("serves the dead-letter stream's length and the last reconcile's drift (0 before any run)", async () => {
    let text = await scrape();
    expect(metricValue(text, "floodgate_dead_letter_entries")).toBe(0);
    expect(metricValue(text, "floodgate_reconcile_drift_found")).toBe(0);
    await app.redis.xadd(app.queueKeys.deadLetters(), "*", "id", "pay_dead", "error", "x");
    await app.redis.xadd(app.queueKeys.deadLetters(), "*", "id", "pay_dead2", "error", "x");
    // As recordReconcileResult (packages/reconcile) leaves it after a run.
    await app.redis.hset(app.queueKeys.reconcileResult(), { drift: 3, unrepaired: 1, finishedAt: 1 });
    text = await scrape();
    expect(metricValue(text, "floodgate_dead_letter_entries")).toBe(2);
    expect(metricValue(text, "floodgate_reconcile_drift_found")).toBe(3);
    expect(metricValue(text, "floodgate_reconcile_drift_unrepaired")).toBe(1);
  });

  it("shows an admitted share of 1 while this process sheds nothing, load shedding off included", async () => {
    // The test environment turns load shedding off (LOAD_SHED_* 0): the process admits every call.
    expect(env.config.loadShedLoopDelayMs + env.config.loadShedRedisWaitMs).toBe(0);
    expect(metricValue(await scrape(), "floodgate_intake_admitted_share")).toBe(1);
  });

  it("serves the queue figures read afresh on the registry alone, as the process's own metrics port does", async () => {
    // server.ts serves registry.metrics() on INTAKE_METRICS_PORT + i, the port Prometheus scrapes: the figures
    // read from Redis must be collected there too, not only by the /metrics route.
    await app.redis.xadd(app.queueKeys.deadLetters(), "*", "id", "pay_dead3", "error", "x");
    const dead = await app.redis.xlen(app.queueKeys.deadLetters());
    await app.redis.hset(app.queueKeys.reconcileResult(), { drift: 5, unrepaired: 0, finishedAt: 2 });
    const text = await app.metrics.registry.metrics();
    expect(metricValue(text, "floodgate_dead_letter_entries")).toBe(dead);
    expect(metricValue(text, "floodgate_reconcile_drift_found")).toBe(5);
    const partition = app.queueKeys.partitionForUser("metrics-0");
    expect(metricValue(text, "floodgate_stream_length", { partition: String(partition) })).toBeGreaterThan(0);
  });

  it("counts no Redis command for a request refused at validation", async () => {
    const start = await redisCommands();
    await post(app, "/v1/payments", { userId: "metrics-4", amount: -1 });
    await post(app, "/v1/payments", { userId: "metrics-4", amount: 1, currency: "USD" });
    await post(app, "/v1/payments", { userId: "metrics-4", amount: 1 }, { "idempotency-key": "bad key" });
    expect(await redisCommands()).toBe(start);
  });
});
