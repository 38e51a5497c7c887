// Rate limits at the edge: a token bucket per user and per client address on each route class, the user's
// checked in the Redis call that enqueues, the address's by a command sent beside it in the same round trip. A
// refusal is a 429 problem with Retry-After and the IETF RateLimit headers, and stores nothing; operators change
// limits at run time.
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
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
let proxied: FastifyInstance;

beforeAll(async () => {
  env = await createTestEnvironment("rate-limits", {
    env: {
      ADMIN_API_KEY: ADMIN_KEY,
      RATE_LIMITS: "*.ip=off,payments.user=0.5/s:3,deposits.user=off,deposits.ip=0.5/s:2,orders.user=off",
    },
  });
  app = await buildApp(env.config, { logger: false });
  // The same deployment behind a proxy it trusts: X-Forwarded-For names the client.
  proxied = await buildApp({ ...env.config, trustProxy: true }, { logger: false });
  await Promise.all([app.ready(), proxied.ready()]);
});

afterAll(async () => {
  await Promise.all([app?.close(), proxied?.close()]);
  await env?.cleanup();
});

const pay = (userId: string, target = app, headers: Record<string, string> = {}) =>
  post(target, "/v1/payments", { userId, amount: 100 }, headers);
const deposit = (userId: string, headers: Record<string, string> = {}, target = app) =>
  post(target, `/v1/wallets/${userId}/deposits`, { amount: 100 }, headers);

describe("a user's token bucket", () => {
  it("lets exactly the burst through, then answers 429 with Retry-After and the RateLimit headers, storing nothing", async () => {
    const accepted = [];
    for (let i = 0; i < 3; i++) accepted.push(await pay("bursty"));
    expect(accepted.map((r) => r.statusCode)).toEqual([202, 202, 202]);
    expect(accepted[0]!.headers["ratelimit-policy"]).toBe('"payments-user";q=3;w=6');
    expect(accepted.map((r) => r.headers.ratelimit)).toEqual([
      expect.stringMatching(/^"payments-user";r=2;t=\d+$/),
      expect.stringMatching(/^"payments-user";r=1;t=\d+$/),
      expect.stringMatching(/^"payments-user";r=0;t=\d+$/),
    ]);

    const before = await totalStreamLength(app);
    const refused = await pay("bursty");
    const problem = expectProblem(refused, 429, "rate_limited", "userId");
    expect(problem).toMatchObject({ retryable: true, type: "/problems/rate-limited" });
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(2);
    expect(refused.headers["ratelimit-policy"]).toBe('"payments-user";q=3;w=6');
    expect(refused.headers.ratelimit).toMatch(/^"payments-user";r=0;t=[12]$/);
    expect(await totalStreamLength(app)).toBe(before);
    // Another user is not affected.
    expect((await pay("calm-user")).statusCode).toBe(202);
  });

  it("is one bucket for every intake process (it lives in Redis)", async () => {
    const second = await buildApp(env.config, { logger: false });
    try {
      const statuses = [];
      for (const target of [app, second, app, second])
        statuses.push((await pay("two-doors", target)).statusCode);
      expect(statuses).toEqual([202, 202, 202, 429]);
    } finally {
      await second.close();
    }
  });
});

describe("a client address's token bucket", () => {
  it("is shared by every user behind the address", async () => {
    const statuses = [];
    for (const user of ["shared-a", "shared-b", "shared-c"]) statuses.push((await deposit(user)).statusCode);
    expect(statuses).toEqual([202, 202, 429]);
    expectProblem(await deposit("shared-d"), 429, "rate_limited", "client address");
  });

  it("ignores X-Forwarded-For unless a proxy is trusted, so a client cannot pick its own bucket", async () => {
    // app trusts no proxy: once the address's bucket is spent, a forged header does not open a fresh one.
    for (let i = 0; i < 5 && (await deposit(`spend-${i}`)).statusCode !== 429; i++);
    expectProblem(await deposit("forger", { "x-forwarded-for": "203.0.113.99" }), 429, "rate_limited");
    // proxied trusts its proxy: each forwarded client has a bucket of its own.
    const statuses = [];
    for (const client of ["198.51.100.1", "198.51.100.1", "198.51.100.1", "198.51.100.2"]) {
      statuses.push(
        (await deposit(`fwd-${statuses.length}`, { "x-forwarded-for": client }, proxied)).statusCode,
      );
    }
    expect(statuses).toEqual([202, 202, 429, 202]);
  });
});

describe("the admin API", () => {
  it("changes a limit at run time for every process, and DELETE goes back to the configured one", async () => {
    expect((await get(app, "/v1/rate-limits", { authorization: "" })).statusCode).toBe(401);
    // The shop's server key is no admin key either.
    expect((await get(app, "/v1/rate-limits")).statusCode).toBe(401);
    const unauthorized = await documentedInject(app, {
      method: "PUT",
      url: "/v1/rate-limits/payments",
      payload: { user: { rate: 100, burst: 100 } },
    });
    expectProblem(unauthorized, 401, "unauthorized");

    const changed = await documentedInject(app, {
      method: "PUT",
      url: "/v1/rate-limits/payments",
      headers: adminHeaders(),
      payload: { user: { rate: 100, burst: 100 } },
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toEqual({ routeClass: "payments", user: { rate: 100, burst: 100 }, ip: null });
    // More than the old burst of 3 from one user now passes, here and (once the config channel told it) in
    // the other process. Buckets already in Redis keep their state: fresh users show the new policy.
    let n = 0;
    const burstOf = async (target: FastifyInstance) => {
      const user = `after-change-${n++}`;
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await pay(user, target)).statusCode);
      return statuses;
    };
    expect(await burstOf(app)).toEqual([202, 202, 202, 202, 202]);
    await expect.poll(() => burstOf(proxied)).toEqual([202, 202, 202, 202, 202]);

    const listed = await documentedInject(app, {
      method: "GET",
      url: "/v1/rate-limits",
      headers: adminHeaders(),
    });
    expect(listed.json().policies).toContainEqual({
      routeClass: "payments",
      user: { rate: 100, burst: 100 },
      ip: null,
    });
    expect(listed.json().policies.map((p: { routeClass: string }) => p.routeClass)).toEqual([
      "payments",
      "deposits",
      "coupon-issues",
      "orders",
      "room-joins",
      "admission-checks",
    ]);

    const reset = await documentedInject(app, {
      method: "DELETE",
      url: "/v1/rate-limits/payments",
      headers: adminHeaders(),
    });
    expect(reset.json()).toEqual({ routeClass: "payments", user: { rate: 0.5, burst: 3 }, ip: null });
  });

  it("refuses a change that names no scope, a bad rate or an unknown class, and changes nothing", async () => {
    const put = (url: string, payload: unknown) =>
      documentedInject(app, { method: "PUT", url, headers: adminHeaders(), payload: payload as object });
    expectProblem(await put("/v1/rate-limits/payments", {}), 400, "validation_error");
    expectProblem(
      await put("/v1/rate-limits/payments", { user: { rate: 0, burst: 1 } }),
      400,
      "validation_error",
      "user.rate",
    );
    expectProblem(
      await put("/v1/rate-limits/payments", { user: { rate: 1, burst: 1.5 } }),
      400,
      "validation_error",
      "user.burst",
    );
    expectProblem(
      await put("/v1/rate-limits/payments", { session: null }),
      400,
      "validation_error",
      "session",
    );
    expectProblem(
      await put("/v1/rate-limits/refunds", { user: null }),
      400,
      "validation_error",
      "routeClass",
    );
    // Room joins take no user limit (one place per user per room): accepting one would limit nothing.
    expectProblem(
      await put("/v1/rate-limits/room-joins", { user: { rate: 1, burst: 1 } }),
      400,
      "validation_error",
      "user",
    );
    const listed = await documentedInject(app, {
      method: "GET",
      url: "/v1/rate-limits",
      headers: adminHeaders(),
    });
    expect(listed.json().policies[0]).toEqual({
      routeClass: "payments",
      user: { rate: 0.5, burst: 3 },
      ip: null,
    });
    expect(listed.json().policies).toContainEqual({
      routeClass: "room-joins",
      user: null,
      ip: null, // this file's RATE_LIMITS turn every IP limit off
    });
  });
});

describe("the cost of limiting", () => {
  it("adds no Redis round trip: one command per accepted request, limits on", async () => {
    const commands = async () =>
      metricValue((await get(app, "/metrics")).body, "floodgate_intake_redis_commands_total");
    const before = await commands();
    for (let i = 0; i < 20; i++) expect((await pay(`cost-${i}`)).statusCode).toBe(202);
    expect((await commands()) - before).toBe(20);
  });

  it("counts the decisions by class, scope and outcome", async () => {
    const text = (await get(app, "/metrics")).body;
    expect(
      metricValue(text, "floodgate_rate_limit_decisions_total", {
        route_class: "payments",
        scope: "user",
        decision: "limited",
      }),
    ).toBe(1); // "bursty"'s fourth payment; the refusal in the two-process test was the other process's

    expect(
      metricValue(text, "floodgate_rate_limit_decisions_total", {
        route_class: "payments",
        scope: "user",
        decision: "allowed",
      }),
    ).toBeGreaterThanOrEqual(20);
  });
});

describe("a policy tightened and then restored", () => {
  it("takes effect at once: the tight policy's debt does not outlive it", async () => {
    const setDeposits = async (user: { rate: number; burst: number }) => {
      const response = await documentedInject(app, {
        method: "PUT",
        url: "/v1/rate-limits/deposits",
        headers: adminHeaders(),
        payload: { user, ip: null },
      });
      expect(response.statusCode, response.body).toBe(200);
    };
    const statuses = async (count: number) => {
      // Back to back: at 0.01/s no token comes back while they run.
      const answers = [];
      for (let i = 0; i < count; i++) answers.push((await deposit("tightened")).statusCode);
      return answers;
    };
    try {
      await setDeposits({ rate: 100, burst: 100 });
      // One token per 100 s: the five taken leave the bucket 500 s in debt under this policy.
      await setDeposits({ rate: 0.01, burst: 5 });
      expect(await statuses(6)).toEqual([202, 202, 202, 202, 202, 429]);
      await setDeposits({ rate: 100, burst: 100 });
      // The bucket is at most empty under the restored policy, whose 100/s refills a token within 10 ms: a
      // bounded wait of a few attempts tells "at once" from the 500 s the old debt would have lasted.
      const accepted = await waitUntil(
        () => deposit("tightened"),
        (response) => response.statusCode === 202,
        "the restored policy to accept",
        40,
      ).catch((error: Error) => {
        throw new Error(error.message.slice(0, 300));
      });
      expect(accepted.headers["ratelimit-policy"]).toBe('"deposits-user";q=100;w=1');
    } finally {
      await documentedInject(app, {
        method: "DELETE",
        url: "/v1/rate-limits/deposits",
        headers: adminHeaders(),
      });
      // Every process hears of the change over pub/sub: the next tests start once both apps have the default
      // back (a request taken by the other app before then ran under the override: no address limit at all).
      await waitUntil(
        async () => [app, proxied].map((target) => target.admission.book.limits("deposits").header),
        (policies) => policies.every((policy) => policy === '"deposits-ip";q=2;w=4'),
        "every app back on the default deposits policy (RATE_LIMITS)",
      );
    }
  });
});

describe("a client address's token, taken beside the script", () => {
  // Deposits: 0.5/s, burst 2 per address (one token per 2 s, full in 4 s); each test its own address.
  const from = (address: string) => ({ "x-forwarded-for": address });
  const scrape = async (target: FastifyInstance) => (await get(target, "/metrics")).body;
  const commands = async (target: FastifyInstance) =>
    metricValue(await scrape(target), "floodgate_intake_redis_commands_total");
  const parallel = async (target: FastifyInstance) =>
    metricValue(await scrape(target), "floodgate_intake_redis_parallel_commands_total");
  /** A labelled counter's series, 0 while it has none (its TYPE line must be there: a typo still fails). */
  const overshoot = async (target: FastifyInstance, routeClass: string) => {
    const text = await scrape(target);
    expect(text).toContain("# TYPE floodgate_rate_limit_overshoot_total counter");
    const series = `floodgate_rate_limit_overshoot_total{route_class="${routeClass}"}`;
    return text.includes(series)
      ? metricValue(text, "floodgate_rate_limit_overshoot_total", { route_class: routeClass })
      : 0;
  };

  it("is refused in this process once it knows the bucket is empty: 429 with Retry-After and RateLimit, no Redis call", async () => {
    const address = from("198.51.100.20");
    const first = await deposit("local-a", address, proxied);
    expect(first.statusCode).toBe(202);
    expect(first.headers["ratelimit-policy"]).toBe('"deposits-ip";q=2;w=4');
    expect(first.headers.ratelimit).toMatch(/^"deposits-ip";r=1;t=[23]$/);
    const second = await deposit("local-b", address, proxied);
    expect(second.headers.ratelimit).toMatch(/^"deposits-ip";r=0;t=[45]$/);

    // (Stream lengths are read on the request connection: before its count is taken.)
    const streamsBefore = await totalStreamLength(proxied);
    const commandsBefore = await commands(proxied);
    const refused = await deposit("local-c", address, proxied);
    const problem = expectProblem(refused, 429, "rate_limited", "client address");
    expect(problem).toMatchObject({ retryable: true });
    expect(["1", "2"]).toContain(refused.headers["retry-after"]); // the next token, 2 s after the last
    expect(refused.headers["ratelimit-policy"]).toBe('"deposits-ip";q=2;w=4');
    expect(refused.headers.ratelimit).toMatch(/^"deposits-ip";r=0;t=[12]$/);
    expect(await commands(proxied)).toBe(commandsBefore);
    expect(await totalStreamLength(proxied)).toBe(streamsBefore);
  });

  it("goes out beside the script in the same turn: two commands, one round trip, the second counted as such", async () => {
    // Warm-up: a connection's first call of a script may check that it is loaded (its own round trip).
    expect((await deposit("paired-warm", from("198.51.100.21"), proxied)).statusCode).toBe(202);
    const socket = (proxied.redis as Redis).stream;
    const write = socket.write;
    // For each write, how many reads from Redis came before it: one round trip means both commands were
    // written before any answer was read. (Two writes: the token is auto-pipelined, the script leaves with its
    // batch, packages/queue enqueue-batches.ts; both at the end of the same turn.)
    let reads = 0;
    const readsBeforeWrites: number[] = [];
    const countRead = () => {
      reads++;
    };
    socket.on("data", countRead);
    socket.write = ((...args: Parameters<typeof write>) => {
      readsBeforeWrites.push(reads);
      return write.apply(socket, args);
    }) as typeof write;
    const before = { commands: await commands(proxied), parallel: await parallel(proxied) };
    try {
      expect((await deposit("paired", from("198.51.100.22"), proxied)).statusCode).toBe(202);
    } finally {
      socket.write = write;
      socket.off("data", countRead);
    }
    expect(readsBeforeWrites.length).toBeGreaterThanOrEqual(1);
    expect(readsBeforeWrites.length).toBeLessThanOrEqual(2);
    expect(readsBeforeWrites.every((readsBefore) => readsBefore === readsBeforeWrites[0])).toBe(true);
    expect((await commands(proxied)) - before.commands).toBe(2);
    expect((await parallel(proxied)) - before.parallel).toBe(1);
  });

  it("lets a concurrent burst from one address through one process exactly to the burst: no overshoot", async () => {
    const address = from("198.51.100.23");
    const before = await overshoot(proxied, "deposits");
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => deposit(`crowd-${i}`, address, proxied)),
    );
    expect(answers.map((a) => a.statusCode).sort()).toEqual([202, 202, 429, 429, 429, 429, 429, 429]);
    for (const refused of answers.filter((a) => a.statusCode === 429))
      expectProblem(refused, 429, "rate_limited", "client address");
    expect(await overshoot(proxied, "deposits")).toBe(before);
  });

  it("lets another process overshoot by at most its view of one burst, counts it, and charges it to the address", async () => {
    const other = await buildApp({ ...env.config, trustProxy: true }, { logger: false });
    try {
      const address = from("198.51.100.24");
      // This process spends the address's bucket.
      for (const user of ["spender-a", "spender-b"])
        expect((await deposit(user, address, proxied)).statusCode).toBe(202);
      // The other process has not heard of the address: its view is a full bucket, so it sends at most a
      // burst's worth, each beside its script. The scripts accept (nothing undoes an accepted request) while
      // the bucket is empty: those are the overshoot, and every one is charged to the bucket.
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => deposit(`late-${i}`, address, other)),
      );
      const accepted = answers.filter((a) => a.statusCode === 202);
      expect(accepted.length).toBeGreaterThanOrEqual(1);
      expect(accepted.length).toBeLessThanOrEqual(2);
      expect(answers.filter((a) => a.statusCode === 429)).toHaveLength(6 - accepted.length);
      expect(await overshoot(other, "deposits")).toBe(accepted.length);
      for (const answer of accepted) expect(answer.headers.ratelimit).toMatch(/^"deposits-ip";r=0;t=\d+$/);

      // Now both refuse without Redis, and the address owes: its next token is further off than the 2 s one
      // token takes (4 s with one charge, 6 s with two).
      const next = await deposit("late-next", address, other);
      expectProblem(next, 429, "rate_limited", "client address");
      expect(Number(next.headers["retry-after"])).toBeGreaterThanOrEqual(3);
      expectProblem(await deposit("spender-c", address, proxied), 429, "rate_limited", "client address");
    } finally {
      await other.close();
    }
  });

  it("limits room joins per address the same way, beside the join, before the room is even looked up", async () => {
    const put = (url: string, payload: object) =>
      documentedInject(app, { method: "PUT", url, headers: adminHeaders(), payload });
    const room = await put("/v1/rooms/join-limited", {
      mode: "off",
      admitPerSecond: 10,
      sessionSeconds: 60,
      guards: [],
    });
    expect(room.statusCode, room.body).toBe(201);
    expect((await put("/v1/rate-limits/room-joins", { ip: { rate: 0.1, burst: 2 } })).statusCode).toBe(200);
    try {
      const join = (userId: string, roomId = "join-limited") =>
        post(app, `/v1/rooms/${roomId}/tickets`, { userId });
      const statuses = [];
      for (const user of ["joiner-a", "joiner-b", "joiner-c"]) statuses.push((await join(user)).statusCode);
      expect(statuses).toEqual([201, 201, 429]);
      const refused = await join("joiner-d", "no-such-room");
      expectProblem(refused, 429, "rate_limited", "client address");
      expect(refused.headers["ratelimit-policy"]).toBe('"room-joins-ip";q=2;w=20');
      expect(refused.headers.ratelimit).toMatch(/^"room-joins-ip";r=0;t=\d+$/);
    } finally {
      await documentedInject(app, {
        method: "DELETE",
        url: "/v1/rate-limits/room-joins",
        headers: adminHeaders(),
      });
    }
  });
});
