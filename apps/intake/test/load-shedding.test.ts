// Load shedding: while the intake's event loop runs late, API calls are refused with 503 busy and Retry-After
// before any work (nothing enqueued), probes and metrics still answer, and once the loop catches up, calls are
// accepted again. The lateness is made, not waited for: the test blocks the loop in chunks.
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { nextShedState } from "../src/plugins/load-shedding-plugin.ts";
import {
  expectProblem,
  get,
  metricValue,
  post,
  totalStreamLength,
  waitUntil,
} from "./support/intake-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;

beforeAll(async () => {
  env = await createTestEnvironment("load-shedding", { env: { LOAD_SHED_LOOP_DELAY_MS: "40" } });
  app = await buildApp(env.config, { logger: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

/** Keeps the event loop busy 150 ms out of every few ms until stopped: a process that fell behind. */
function blockTheLoop(): () => void {
  const timer = setInterval(() => {
    const until = Date.now() + 150;
    while (Date.now() < until) {
      // busy: nothing else runs meanwhile
    }
  }, 1);
  return () => clearInterval(timer);
}

let sequence = 0;
const pay = () =>
  post(app, "/v1/payments", { userId: "shopper", amount: 1 }, { "idempotency-key": `shed-${++sequence}` });

describe("the shedding decision", () => {
  it("starts above the threshold, stops only below half of it, and keeps its state without samples", () => {
    expect(nextShedState(false, 41, 40)).toBe(true);
    expect(nextShedState(false, 40, 40)).toBe(false);
    expect(nextShedState(true, 25, 40)).toBe(true);
    expect(nextShedState(true, 19, 40)).toBe(false);
    expect(nextShedState(true, Number.NaN, 40)).toBe(true);
    expect(nextShedState(false, Number.NaN, 40)).toBe(false);
  });
});

describe("while the event loop is late", () => {
  it("answers API calls 503 busy with Retry-After and stores nothing, keeps probes open, then recovers", async () => {
    const first = await waitUntil(pay, (response) => response.statusCode !== 503, "a quiet loop");
    expect(first.statusCode, first.body).toBe(202);
    const unblock = blockTheLoop();
    try {
      const refused = await waitUntil(pay, (response) => response.statusCode === 503, "a shed payment");
      const before = await totalStreamLength(app);
      const again = await pay();
      if (again.statusCode === 503) {
        const body = expectProblem(again, 503, "busy");
        expect(body.retryable).toBe(true);
        expect(again.headers["retry-after"]).toBe("1");
        expect(await totalStreamLength(app)).toBe(before);
      }
      expect(expectProblem(refused, 503, "busy").retryable).toBe(true);
      expect(refused.headers["retry-after"]).toBe("1");
      expect((await app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);
      const metrics = await app.inject({ method: "GET", url: "/metrics" });
      expect(metricValue(metrics.body, "floodgate_intake_shed_requests_total")).toBeGreaterThan(0);
      // Shed before authentication: a missing credential gets the same 503, not a 401.
      const anonymous = await post(app, "/v1/payments", { userId: "x", amount: 1 }, { authorization: "" });
      if (anonymous.statusCode !== 503) expect(anonymous.statusCode).toBe(401);
    } finally {
      unblock();
    }
    const accepted = await waitUntil(
      pay,
      (response) => response.statusCode === 202,
      "a payment accepted again",
    );
    expect(accepted.statusCode).toBe(202);
    expect((await get(app, "/v1/wallets/shopper")).statusCode).toBe(200);
  });
});
