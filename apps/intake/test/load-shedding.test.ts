// Load shedding: while the intake's event loop runs late, a share of API calls is refused with 503 busy and
// Retry-After before any work (nothing enqueued), probes and metrics still answer, and once the loop catches
// up, calls are accepted again; over a real socket the hot POSTs are refused before Fastify, with the same
// answer. The lateness is made, not waited for: the test blocks the loop in chunks.
import { createTestEnvironment, serverKeyFor, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import {
  LoadShedder,
  MIN_ADMIT_SHARE,
  nextAdmitShare,
  windowLateness,
} from "../src/load-shedding/load-shedder.ts";
import {
  documentedInject,
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
  // Only the loop's signal: the test makes its lateness. (Redis' answer time is the same rule on another mean.)
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

describe("the admitted share", () => {
  it("halves when late, grows back in steps when on time, holds in between, never below its floor", () => {
    expect(nextAdmitShare(1, "late")).toBe(0.5);
    expect(nextAdmitShare(0.5, "late")).toBe(0.25);
    expect(nextAdmitShare(0.25, "between")).toBe(0.25);
    expect(nextAdmitShare(0.25, "on-time")).toBe(0.35);
    expect(nextAdmitShare(0.95, "on-time")).toBe(1);
    expect(nextAdmitShare(MIN_ADMIT_SHARE, "late")).toBe(MIN_ADMIT_SHARE);
  });

  it("is late when either signal is over its limit, on time only when every one is under half", () => {
    const judge = (loopMs: number, redisMs: number, limits = { loop: 40, redis: 100 }) =>
      windowLateness({ valueMs: loopMs, limitMs: limits.loop }, { valueMs: redisMs, limitMs: limits.redis });
    expect(judge(41, 1)).toBe("late");
    expect(judge(1, 101)).toBe("late");
    expect(judge(40, 1)).toBe("between");
    expect(judge(19, 49)).toBe("on-time");
    expect(judge(19, 60)).toBe("between");
    // Redis without answers says nothing; a loop without samples holds the share.
    expect(judge(19, Number.NaN)).toBe("on-time");
    expect(judge(Number.NaN, 10)).toBe("between");
    // A limit of 0 leaves its signal out.
    expect(judge(500, 10, { loop: 0, redis: 100 })).toBe("on-time");
    expect(judge(10, 5000, { loop: 40, redis: 0 })).toBe("on-time");
  });

  it("refuses about the share it does not admit, and tells when shedding starts and stops", () => {
    const shedder = new LoadShedder({ loopDelayMs: 40, redisWaitMs: 100 });
    const transitions: boolean[] = [];
    const note = (transition: { shedding: boolean }) => transitions.push(transition.shedding);
    expect(shedder.shouldShed()).toBe(false);
    shedder.observe(100, 1, note);
    shedder.observe(1, 500, note);
    expect(shedder.admitShare).toBe(0.25);
    expect(shedder.detail()).toMatch(/Redis answers in 500 ms \(limit 100 ms\); it admits 25 % of API calls/);
    let shed = 0;
    for (let i = 0; i < 10_000; i++) if (shedder.shouldShed()) shed++;
    expect(shed).toBeGreaterThan(7_000);
    expect(shed).toBeLessThan(8_000);
    for (let window = 0; window < 8; window++) shedder.observe(0, Number.NaN, note);
    expect(shedder.admitShare).toBe(1);
    expect(shedder.shouldShed()).toBe(false);
    expect(transitions).toEqual([true, false]);
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
      expect((await documentedInject(app, { method: "GET", url: "/healthz" })).statusCode).toBe(200);
      const metrics = await documentedInject(app, { method: "GET", url: "/metrics" });
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
    // Recovered in full: the share grows back in steps, so wait for a run of reads none of which is shed.
    const reads = await waitUntil(
      () => Promise.all(Array.from({ length: 10 }, () => get(app, "/v1/wallets/shopper"))),
      (answers) => answers.every((answer) => answer.statusCode !== 503),
      "ten reads in a row admitted",
    );
    expect(reads.map((answer) => answer.statusCode)).toEqual(Array(10).fill(200));
  });
});

describe("over a real socket", () => {
  it("refuses the hot POSTs before Fastify with the same problem, and stores nothing", async () => {
    const listening = await buildApp(env.config, { logger: false });
    try {
      const address = await listening.listen({ port: 0, host: "127.0.0.1" });
      const headers = {
        "content-type": "application/json",
        authorization: `Bearer ${serverKeyFor(env.config)}`,
      };
      const payOverHttp = () =>
        fetch(`${address}/v1/payments`, {
          method: "POST",
          headers: { ...headers, "idempotency-key": `raw-${++sequence}` },
          body: JSON.stringify({ userId: "raw-shopper", amount: 1 }),
        });
      const unblock = blockTheLoop();
      let refused: Response;
      let streamBefore: number;
      let streamAfter: number;
      try {
        do refused = await payOverHttp();
        while (refused.status !== 503);
        streamBefore = await totalStreamLength(listening);
        const again = await payOverHttp();
        streamAfter = await totalStreamLength(listening);
        if (again.status !== 503) streamAfter = streamBefore; // admitted: a 202 may store, by design
      } finally {
        unblock();
      }
      expect(refused.headers.get("content-type")).toBe("application/problem+json; charset=utf-8");
      expect(refused.headers.get("retry-after")).toBe("1");
      const body = (await refused.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ type: "/problems/busy", status: 503, code: "busy", retryable: true });
      expect(body.instance).toBe("/v1/payments");
      expect(body.requestId).toBe(refused.headers.get("x-request-id"));
      expect(String(body.detail)).toMatch(/admits \d+ % of API calls/);
      expect(streamAfter).toBe(streamBefore);
      // Answered before Fastify: the shed counter moved, the route's latency histogram has no 503 for it.
      const metrics = await documentedInject(listening, { method: "GET", url: "/metrics" });
      expect(metricValue(metrics.body, "floodgate_intake_shed_requests_total")).toBeGreaterThan(0);
      expect(metrics.body).not.toMatch(
        /floodgate_http_request_duration_seconds_count\{[^}]*route="\/v1\/payments"[^}]*status="503"/,
      );
      // And the loop caught up: the same socket path accepts again.
      let accepted: Response;
      do accepted = await payOverHttp();
      while (accepted.status === 503);
      expect(accepted.status).toBe(202);
    } finally {
      await listening.close();
    }
  });
});
