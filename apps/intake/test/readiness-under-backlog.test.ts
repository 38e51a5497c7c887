// A backlog no worker drains (here no worker at all) is answered request by request, so the intake stays in
// service for it: payments get 503 overloaded with Retry-After, /readyz answers 200 with the backlog only in its
// body, and a waiting-room WebSocket opened before the backlog stays open and keeps hearing its place. A 503 on
// /readyz would take the intake out of its Service: connection errors instead of those answers, every socket
// dropped.
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_KEY, adminHeaders } from "./support/coupon-test-kit.ts";
import { documentedInject, expectProblem, get, post, waitUntil } from "./support/intake-test-kit.ts";
import { openTicketSocket } from "./support/ticket-socket.ts";

let env: TestEnvironment;
let app: FastifyInstance;

beforeAll(async () => {
  env = await createTestEnvironment("readiness-under-backlog", {
    env: { ADMIN_API_KEY: ADMIN_KEY, BACKPRESSURE_SECONDS: "1" },
  });
  app = await buildApp(env.config, { logger: false });
  await app.listen({ port: 0, host: "127.0.0.1" });
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

const baseUrl = () => `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
const pay = (userId: string) => post(app, "/v1/payments", { userId, amount: 1 });
const join = (userId: string) => post(app, "/v1/rooms/line/tickets", { userId });

describe("with a backlog no worker drains", () => {
  it("stays ready and keeps a waiting room's WebSocket open while payments are refused for the backlog", async () => {
    // The room guards no class (payments meet the backpressure check itself) and starts in an hour: nobody is
    // admitted, so all the socket hears is its place in the pre-queue, which is the pre-queue's size.
    const room = await documentedInject(app, {
      method: "PUT",
      url: "/v1/rooms/line",
      headers: adminHeaders(),
      payload: {
        mode: "on",
        admitPerSecond: 1,
        sessionSeconds: 60,
        guards: [],
        startsAt: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    expect(room.statusCode).toBe(201);
    const watcher = await join("watcher");
    expect(watcher.statusCode).toBe(201);
    const socket = await openTicketSocket(baseUrl(), "line", watcher.json().ticketId, env.serverKey);
    try {
      expect(await socket.next((m) => m.type === "position", "the first position")).toMatchObject({
        position: 1,
      });

      // Up to the backlog floor of 1,000 entries nothing is refused; past it, with no worker, the drain time is
      // unbounded and payments are refused from the leader's next measurement on.
      for (let i = 0; i < 1000; i++) expect((await pay(`backlog-${i % 50}`)).statusCode).toBe(202);
      const refused = await waitUntil(
        () => pay("one-more"),
        (r) => r.statusCode === 503,
        "backpressure",
      );
      expectProblem(refused, 503, "overloaded");
      expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);

      const ready = await get(app, "/readyz");
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toMatchObject({
        status: "ready",
        checks: { redis: "ok" },
        workers: { backpressure: true, drainSeconds: null },
      });
      expect(ready.json().workers.backlog).toBeGreaterThanOrEqual(1000);
      expect(ready.json().workers.state).toMatch(/acknowledge none/);

      // The room still takes people, and the socket opened before the backlog hears its place change.
      expect(socket.isOpen()).toBe(true);
      expect((await join("after-the-backlog")).statusCode).toBe(201);
      await socket.next((m) => m.type === "position" && m.position === 2, "the place after the backlog");
      expect(socket.isOpen()).toBe(true);
      // Still refused for the backlog: the readiness answer changed nothing per request.
      expectProblem(await pay("still-refused"), 503, "overloaded");
    } finally {
      socket.close();
    }
  });
});
