// /healthz says the process lives; /readyz says Redis, the global database and every shard answer, and
// names what does not.
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
import { get as getAs, withCredentials } from "./support/intake-test-kit.ts";

/** As a load balancer's probe: health and readiness are public, so no credentials. */
const get = (target: FastifyInstance, url: string) => getAs(target, url, { authorization: "" });

let env: TestEnvironment;
let app: FastifyInstance;
let proxy: TcpProxy;
/** The same deployment, but its shard 2 is reached through a proxy the test can take down. */
let proxied: FastifyInstance;

beforeAll(async () => {
  env = await createTestEnvironment("health-routes");
  app = await buildApp(env.config, { logger: false });
  const shard2 = new URL(env.config.shardUrls[2]!);
  proxy = await startTcpProxy(shard2.hostname, Number(shard2.port || 5432));
  shard2.port = String(proxy.port);
  const shardUrls = env.config.shardUrls.map((url, i) => (i === 2 ? shard2.toString() : url));
  proxied = await buildApp({ ...env.config, shardUrls }, { logger: false });
  await Promise.all([app.ready(), proxied.ready()]);
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
  });
});

describe("GET /readyz", () => {
  it("answers 200 when Redis and every shard answer", async () => {
    const response = await get(app, "/readyz");
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      status: "ready",
      checks: { redis: "ok", global: "ok", shard_0: "ok", shard_1: "ok", shard_2: "ok", shard_3: "ok" },
    });
  });

  it("answers 503 naming the shard that is down, and 200 again once it is back", async () => {
    expect((await get(proxied, "/readyz")).statusCode).toBe(200);

    await proxy.down();
    const down = await get(proxied, "/readyz");
    expect(down.statusCode).toBe(503);
    const body = down.json();
    expect(body.status).toBe("unavailable");
    expect(body.checks.shard_2).not.toBe("ok");
    expect(body.checks.shard_2.length).toBeGreaterThan(0);
    expect(body.checks).toMatchObject({
      redis: "ok",
      global: "ok",
      shard_0: "ok",
      shard_1: "ok",
      shard_3: "ok",
    });
    // Liveness does not depend on the shards.
    expect((await get(proxied, "/healthz")).statusCode).toBe(200);

    await proxy.up();
    await expect
      .poll(async () => (await get(proxied, "/readyz")).statusCode, { timeout: 15_000, interval: 100 })
      .toBe(200);
  });

  it("keeps accepting payments while a shard is down (accepting never touches Postgres)", async () => {
    await proxy.down();
    try {
      const response = await proxied.inject({
        method: "POST",
        url: "/v1/payments",
        headers: withCredentials(proxied),
        payload: { userId: "ready-1", amount: 10 },
      });
      expect(response.statusCode).toBe(202);
    } finally {
      await proxy.up();
    }
  });

  it("survives a shard dying under a query in flight (the query fails, the process stays up)", async () => {
    // A slow query holds a client of the proxied shard; the real shard (not proxied) shows when it runs.
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
              where query like 'select pg_sleep(30)%' and state = 'active'`.execute(app.shards.databases[2]!)
          ).rows[0]!.n,
        { timeout: 10_000, interval: 50 },
      )
      .toBe(1);
    await proxy.down();
    try {
      expect(await outcome).not.toBe("finished");
      const response = await get(proxied, "/readyz");
      expect(response.statusCode).toBe(503);
      expect(response.json().checks.shard_2).not.toBe("ok");
    } finally {
      await proxy.up();
    }
    await expect
      .poll(async () => (await get(proxied, "/readyz")).statusCode, { timeout: 15_000, interval: 100 })
      .toBe(200);
  });
});
