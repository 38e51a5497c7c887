// Products are written to Postgres, then to Redis. With Redis already away nothing is stored (503, retry);
// when Redis goes away between the two, the change stays in Postgres for reconcile and the 503 says not to
// repeat it. The app under test reaches Redis through a proxy the test takes down; `observer` looks directly.
import { createKysely, type GlobalDatabase } from "@floodgate/db";
import {
  createTestEnvironment,
  startTcpProxy,
  type TcpProxy,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_ENV, adminHeaders } from "./support/coupon-test-kit.ts";
import { expectProblem, post, waitUntil } from "./support/intake-test-kit.ts";
import {
  createProduct,
  getProduct,
  patchProduct,
  productBody,
  productRow,
  productRows,
  productState,
} from "./support/product-test-kit.ts";

let env: TestEnvironment;
let proxy: TcpProxy;
let proxied: FastifyInstance;
let observer: FastifyInstance;
/** Connections of the test's own: one holds a lock on `products`, one watches who waits for it. */
let locker: Kysely<GlobalDatabase>;

beforeAll(async () => {
  env = await createTestEnvironment("products-redis-down", { env: ADMIN_ENV });
  const redisUrl = new URL(env.config.redisUrl);
  proxy = await startTcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
  redisUrl.port = String(proxy.port);
  proxied = await buildApp({ ...env.config, redisUrl: redisUrl.toString() }, { logger: false });
  observer = await buildApp(env.config, { logger: false });
  locker = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 2 });
  await Promise.all([proxied.ready(), observer.ready()]);
});

afterAll(async () => {
  await locker?.destroy();
  await proxied?.close();
  await observer?.close();
  await proxy?.close();
  await env?.cleanup();
});

async function takeRedisDown() {
  await proxy.down();
  await waitUntil(
    async () => proxied.redis.status,
    (status) => status !== "ready",
    "redis to go away",
  );
}

async function bringRedisBack() {
  await proxy.up();
  await waitUntil(
    async () => proxied.redis.status,
    (status) => status === "ready",
    "redis to come back",
  );
}

/**
 * Holds an EXCLUSIVE lock on `products` (reads pass, writes wait) until the returned function is called, so
 * a test can take Redis down while a request waits between its admin check and its Postgres write.
 */
async function holdProductWrites(): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let locked!: () => void;
  const holding = new Promise<void>((resolve) => {
    locked = resolve;
  });
  const transaction = locker.transaction().execute(async (trx) => {
    await sql`lock table products in exclusive mode`.execute(trx);
    locked();
    await released;
  });
  await holding;
  return async () => {
    release();
    await transaction;
  };
}

const writesWaiting = async () =>
  Number(
    (
      await sql<{ n: string }>`select count(*) as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`.execute(locker)
    ).rows[0]!.n,
  );

/** Runs `request` so that Redis goes away after its Postgres write started and before its Redis write. */
async function withRedisLostMidway<T>(request: () => Promise<T>): Promise<T> {
  const releaseWrites = await holdProductWrites();
  const answer = request();
  try {
    await waitUntil(writesWaiting, (n) => n > 0, "the request's write to wait for the lock");
    await takeRedisDown();
  } finally {
    await releaseWrites();
  }
  return answer;
}

describe("with Redis away before the request", () => {
  it("refuses a create and a change with 503 + Retry-After, and stores nothing", async () => {
    const product = await createProduct(observer, { stock: 5 });
    const rows = await productRows(observer);
    await takeRedisDown();
    try {
      for (const response of [
        await post(proxied, "/v1/products", productBody(), adminHeaders()),
        await patchProduct(proxied, product.id, { stockAdded: 5 }),
      ]) {
        const problem = expectProblem(response, 503, "service_unavailable");
        expect(problem.retryable).toBe(true);
        expect(Number(response.headers["retry-after"])).toBeGreaterThan(0);
        expect(response.headers.location).toBeUndefined();
      }
      expect(await productRows(observer)).toEqual(rows);
    } finally {
      await bringRedisBack();
    }
    expect(await productState(observer, product.id)).toEqual({
      price: String(product.price),
      available: "5",
    });
  });
});

describe("with Redis lost between the Postgres write and the Redis write", () => {
  it("keeps a created product in Postgres, without state, and answers a 503 that says not to repeat it", async () => {
    const response = await withRedisLostMidway(() =>
      post(proxied, "/v1/products", productBody({ stock: 7 }), adminHeaders()),
    );
    await bringRedisBack();

    const problem = expectProblem(response, 503, "product_state_not_written");
    expect(problem.retryable).toBe(false);
    const productId = problem.existingId as string;
    expect(productId).toMatch(/^prd_/);
    expect(problem.detail).toContain("Do not create it again");
    expect(await productRow(observer, productId)).toMatchObject({ stock: 7, received: 7 });
    // Not on sale until reconcile writes its state; the view says so.
    expect(await productState(observer, productId)).toEqual({});
    expect((await getProduct(observer, productId)).json()).toMatchObject({ stock: 7, available: null });
  });

  it("keeps a change in Postgres, leaves Redis as it was, and answers a 503 that says not to repeat it", async () => {
    const product = await createProduct(observer, { price: 1000, stock: 4 });
    const response = await withRedisLostMidway(() =>
      patchProduct(proxied, product.id, { price: 900, stockAdded: 6 }),
    );
    await bringRedisBack();

    const problem = expectProblem(response, 503, "product_state_not_written");
    expect(problem).toMatchObject({ retryable: false, existingId: product.id });
    expect(await productRow(observer, product.id)).toMatchObject({ price: 900, stock: 10, received: 10 });
    // Redis is behind (fewer units on sale, the old price) until reconcile: never more than Postgres holds.
    expect(await productState(observer, product.id)).toEqual({ price: "1000", available: "4" });
  });
});
