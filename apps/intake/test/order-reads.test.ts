// GET /v1/orders/:id (and so an order's operation socket, which reads the same view) while a worker applies the
// order. The worker commits the order's row on its shard and only then writes its status to Redis; the read goes
// to the shard first, and to Redis when the row is not there. A read whose shard query ran just before the
// commit, and whose Redis read came just after the status, must not answer 404: a checkout page opens its socket
// on the 202, as the worker applies the order, and a 404 there ends the purchase as refused (seen in the demo
// store's browser test on a loaded machine). The interleaving is made, not waited for: the intake reaches its
// shards through proxies that hold the shard's reply while the worker commits.
import { createPool } from "@floodgate/db";
import { readStatusRecord } from "@floodgate/queue";
import {
  createTestEnvironment,
  startTcpProxy,
  startWorkerProcess,
  type TcpProxy,
  type TestEnvironment,
  type WorkerProcess,
} from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_ENV } from "./support/coupon-test-kit.ts";
import { get, post, waitUntil } from "./support/intake-test-kit.ts";
import { createProduct } from "./support/product-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;
let worker: WorkerProcess;
let proxies: TcpProxy[];
let shardPools: ReturnType<typeof createPool>[];

beforeAll(async () => {
  env = await createTestEnvironment("order-reads", { env: ADMIN_ENV });
  proxies = await Promise.all(
    env.config.shardUrls.map((url) => startTcpProxy("127.0.0.1", Number(new URL(url).port || 5432))),
  );
  const shardUrls = env.config.shardUrls.map((url, i) => {
    const proxied = new URL(url);
    proxied.port = String(proxies[i]!.port);
    return proxied.toString();
  });
  app = await buildApp({ ...env.config, shardUrls }, { logger: false });
  await app.ready();
  shardPools = env.config.shardUrls.map((url) => createPool(url, { max: 1, applicationName: "order-reads" }));
  worker = await startWorkerProcess(env.config); // straight to the shards
});

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await Promise.all((shardPools ?? []).map((pool) => pool.end()));
  await Promise.all((proxies ?? []).map((proxy) => proxy.close()));
  await env?.cleanup();
});

describe("reading an order while a worker applies it", () => {
  it("answers the order, not 404, when the read missed the row and then saw the worker's status", async () => {
    const { id: productId } = await createProduct(app, { stock: 10, price: 1_000 });
    // Every shard's connection opened now (readyz reads them all), so a held reply is a query's, not a handshake's.
    expect((await get(app, "/readyz")).statusCode).toBe(200);

    // Inserts into orders wait behind this lock (reads do not): the worker cannot commit the order yet.
    const locks = await Promise.all(shardPools.map((pool) => pool.connect()));
    for (const lock of locks) await lock.query("begin; lock table orders in share row exclusive mode");
    let id: string;
    let read: ReturnType<typeof get>;
    try {
      const placed = await post(app, "/v1/orders", { userId: "reader", items: [{ productId, quantity: 1 }] });
      expect(placed.statusCode, placed.body).toBe(202);
      id = placed.json().id;

      // The read's shard query runs now, before the commit, and finds no row; its answer waits in the proxy.
      for (const proxy of proxies) proxy.holdReplies();
      read = get(app, `/v1/orders/${id}`);
      await waitUntil(
        async () => proxies.some((proxy) => proxy.heldReplyBytes() > 0),
        (answered) => answered,
        "the shard to answer the read",
      );
    } finally {
      for (const lock of locks) {
        await lock.query("commit");
        lock.release();
      }
    }
    // The worker commits the order and writes its status; only then does the read hear from its shard.
    await waitUntil(
      async () => (await readStatusRecord(app.redis, app.queueKeys, id))?.status,
      (status) => status === "succeeded",
      "the worker's status",
      600, // 30 s: a loaded machine's worker may be slow to get to it
    );
    for (const proxy of proxies) proxy.releaseReplies();

    const response = await read;
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      id,
      userId: "reader",
      status: "awaiting_payment",
      amount: 1_000,
    });
  });
});
