// Backpressure: when the queued work would take longer than BACKPRESSURE_SECONDS to drain at the workers'
// measured rate, guarded routes stop taking new users: a room in auto mode starts queueing, a class no room
// guards answers 503 with Retry-After, and /readyz stays 200, naming the backlog in its body (the intakes must stay
// in service to answer so). Once workers drain the backlog, all of it ends.
import {
  createTestEnvironment,
  startWorkerProcess,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY, adminHeaders } from "./support/coupon-test-kit.ts";
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
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  env = await createTestEnvironment("backpressure", {
    env: { ADMIN_API_KEY: ADMIN_KEY, BACKPRESSURE_SECONDS: "1", ROOM_COOLDOWN_SECONDS: "1" },
  });
  app = await buildApp(env.config, { logger: false });
  await app.ready();
});

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await env?.cleanup();
});

const deposit = (userId: string) => post(app, `/v1/wallets/${userId}/deposits`, { amount: 10 });
const pay = (userId: string) => post(app, "/v1/payments", { userId, amount: 1 });

describe("with a backlog no worker drains", () => {
  it("answers 503 with Retry-After where no room guards, storing nothing, and starts an auto room queueing", async () => {
    await documentedInject(app, {
      method: "PUT",
      url: "/v1/rooms/guard",
      headers: adminHeaders(),
      payload: { mode: "auto", admitPerSecond: 1000, sessionSeconds: 60, guards: ["payments"] },
    });
    // Up to the backlog floor of 1,000 entries nothing is refused. Past it, with no worker, the drain time is
    // unbounded, and deposits are refused from the leader's next measurement on: on a loaded machine that can
    // come before a longer run of deposits ends, so the run stops at the floor and the next ones wait for it.
    for (let i = 0; i < 1000; i++) expect((await deposit(`backlog-${i % 50}`)).statusCode).toBe(202);

    const refused = await waitUntil(
      () => deposit("one-more"),
      (r) => r.statusCode === 503,
      "backpressure",
    );
    const problem = expectProblem(refused, 503, "overloaded");
    expect(problem.retryable).toBe(true);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    const before = await totalStreamLength(app);
    expectProblem(await deposit("one-more"), 503, "overloaded");
    expect(await totalStreamLength(app)).toBe(before);

    // The guarded class goes to its room instead: it queues, and a request without a token is sent to join.
    await waitUntil(
      () => pay("new-user"),
      (r) => r.statusCode === 403,
      "the auto room to queue",
    );
    expectProblem(await pay("new-user"), 403, "waiting_room_required");
    const text = (await get(app, "/metrics")).body;
    expect(metricValue(text, "floodgate_backpressure_active")).toBe(1);
    expect(
      metricValue(text, "floodgate_backpressure_refusals_total", { route_class: "deposits" }),
    ).toBeGreaterThanOrEqual(2);
    // Nothing drains, and this intake still answers for it: ready, with the stuck backlog in the body.
    const ready = await get(app, "/readyz");
    expect(ready.statusCode).toBe(200);
    expect(ready.json().workers.state).toMatch(/acknowledge none/);
    expect(ready.json().workers).toMatchObject({ backpressure: true, drainSeconds: null });
  });

  it("ends once a worker drains the backlog: the unguarded class accepts again and the room stops queueing", async () => {
    worker = await startWorkerProcess(env.config);
    await waitUntil(
      () => deposit("after-drain"),
      (r) => r.statusCode === 202,
      "the backlog to drain",
      600,
    );
    await waitUntil(
      () => pay("after-drain"),
      (r) => r.statusCode === 202,
      "the room to stop queueing",
      200,
    );
    const ready = await get(app, "/readyz");
    expect(ready.statusCode).toBe(200);
    expect(ready.json().workers).toMatchObject({ state: "ok", backpressure: false });
  });
});
