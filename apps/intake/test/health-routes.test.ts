// /healthz says the process lives; /readyz says "send me traffic": Redis takes writes, not shutting down. The
// workers' backlog and every database's state are in its body (and floodgate_shard_up), but a shard down never
// makes it 503 (the intake keeps accepting for that shard; a backlog: readiness-under-backlog.test.ts). On
// SIGTERM it answers 503 for the drain window while still serving.
import {
  createTestEnvironment,
  startTcpProxy,
  type TcpProxy,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { drainThenClose } from "../src/health/drain-then-close.ts";
import { get, metricValue, post } from "./support/intake-test-kit.ts";
import {
  type ContractDocument,
  documentedOperation,
  expectDocumentedAnswer,
  servedDocument,
} from "./support/openapi-contract.ts";

let env: TestEnvironment;
let app: FastifyInstance;
let proxy: TcpProxy;
/** The same deployment, but its shard 2 is reached through a proxy the test can take down. */
let proxied: FastifyInstance;
let document: ContractDocument;
/** The proxied app's config is derived from the environment's, so its requests name the key themselves. */
const shop = () => ({ authorization: `Bearer ${env.serverKey}` });

beforeAll(async () => {
  env = await createTestEnvironment("health-routes");
  app = await buildApp(env.config, { logger: false });
  const shard2 = new URL(env.config.shardUrls[2]!);
  proxy = await startTcpProxy(shard2.hostname, Number(shard2.port || 5432));
  shard2.port = String(proxy.port);
  const shardUrls = env.config.shardUrls.map((url, i) => (i === 2 ? shard2.toString() : url));
  proxied = await buildApp({ ...env.config, shardUrls }, { logger: false });
  await Promise.all([app.ready(), proxied.ready()]);
  document = await servedDocument(app);
});

afterAll(async () => {
  await proxied?.close();
  await proxy?.close();
  await app?.close();
  await env?.cleanup();
});

describe("GET /healthz", () => {
  it("answers 200", async () => {
    const response = await get(app, "/healthz");
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: "ok" });
    expectDocumentedAnswer(document, "getHealth", response);
  });
});

describe("GET /metrics", () => {
  it("answers 200 in Prometheus's text format, as documented", async () => {
    const response = await get(app, "/metrics");
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(response.body).toMatch(/^# HELP /m);
    expectDocumentedAnswer(document, "getMetrics", response);
  });

  it("the document names every answer of the three routes and nothing else", () => {
    const statuses = (id: string) => Object.keys(documentedOperation(document, id).responses);
    expect(statuses("getHealth")).toEqual(["200"]);
    expect(statuses("getReadiness")).toEqual(["200", "503"]);
    expect(statuses("getMetrics")).toEqual(["200"]);
    // /readyz's 503 is its report, not a problem: a load balancer reads the status, a person the body.
    expect(Object.keys(documentedOperation(document, "getReadiness").responses["503"]!.content!)).toEqual([
      "application/json",
    ]);
  });
});

describe("GET /readyz", () => {
  it("answers 200 with Redis, the workers' backlog and every database's state", async () => {
    const response = await get(app, "/readyz");
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      status: "ready",
      checks: { redis: "ok" },
      workers: {
        state: "ok",
        backpressure: false,
        backlog: expect.any(Number),
        drainSeconds: expect.any(Number),
      },
      databases: { global: "ok", shards: { "0": "ok", "1": "ok", "2": "ok", "3": "ok" } },
    });
    expectDocumentedAnswer(document, "getReadiness", response);
  });

  it("stays 200 with a shard down, naming it in the body and in floodgate_shard_up, and while accepting for it", async () => {
    await proxy.down();
    try {
      const down = await get(proxied, "/readyz", shop());
      expect(down.statusCode).toBe(200);
      const body = down.json();
      expect(body.status).toBe("ready");
      expect(body.databases.shards["2"]).not.toBe("ok");
      expect(body.databases.shards["2"].length).toBeGreaterThan(0);
      expect(body.databases).toMatchObject({ global: "ok", shards: { "0": "ok", "1": "ok", "3": "ok" } });
      expectDocumentedAnswer(document, "getReadiness", down);
      const metrics = (await get(proxied, "/metrics", shop())).body;
      expect(metricValue(metrics, "floodgate_shard_up", { shard: "2" })).toBe(0);
      expect(metricValue(metrics, "floodgate_shard_up", { shard: "0" })).toBe(1);
      expect(metricValue(metrics, "floodgate_global_db_up")).toBe(1);
      // Accepting never touches Postgres: the shard's payments wait in the queue.
      expect(
        (await post(proxied, "/v1/payments", { userId: "ready-1", amount: 10 }, shop())).statusCode,
      ).toBe(202);
      expect((await get(proxied, "/healthz", shop())).statusCode).toBe(200);
    } finally {
      await proxy.up();
    }
    await expect
      .poll(async () => (await get(proxied, "/readyz", shop())).json().databases.shards["2"], {
        timeout: 15_000,
        interval: 100,
      })
      .toBe("ok");
    expect(
      metricValue((await get(proxied, "/metrics", shop())).body, "floodgate_shard_up", { shard: "2" }),
    ).toBe(1);
  });

  it("survives a shard dying under a query in flight (the query fails, the process stays up and ready)", async () => {
    // A slow query holds a client of the proxied shard; the real shard (not proxied) shows when it runs. Counted
    // in this file's own shard database: the suite's other project runs this same test at the same time.
    const slow = sql`select pg_sleep(30) as slept`.execute(proxied.shards.databases[2]!);
    const outcome = slow.then(
      () => "finished",
      (error: Error) => error.message,
    );
    await expect
      .poll(
        async () =>
          (
            await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
              where datname = current_database() and query like 'select pg_sleep(30)%' and state = 'active'`.execute(
              app.shards.databases[2]!,
            )
          ).rows[0]!.n,
        { timeout: 10_000, interval: 50 },
      )
      .toBe(1);
    await proxy.down();
    try {
      expect(await outcome).not.toBe("finished");
      const response = await get(proxied, "/readyz", shop());
      expect(response.statusCode).toBe(200);
      expect(response.json().databases.shards["2"]).not.toBe("ok");
    } finally {
      await proxy.up();
    }
  });
});

describe("shutting down", () => {
  it("answers /readyz 503 for the drain window while every route still serves, then closes", async () => {
    const closing = await buildApp(env.config, { logger: false });
    await closing.ready();
    expect((await get(closing, "/readyz")).statusCode).toBe(200);
    const closed = drainThenClose(closing, 2);
    const draining = await get(closing, "/readyz");
    expect(draining.statusCode).toBe(503);
    expect(draining.json().status).toBe("draining");
    expectDocumentedAnswer(document, "getReadiness", draining);
    expect((await get(closing, "/healthz")).statusCode).toBe(200);
    expect((await post(closing, "/v1/payments", { userId: "draining-1", amount: 1 })).statusCode).toBe(202);
    await closed;
  });
});
