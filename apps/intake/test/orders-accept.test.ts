// POST /v1/orders at the edge: one Redis round trip for an accepted order, none for a refused body, every bad
// input a 400 naming its field with nothing reserved or enqueued, and the order series in /metrics.
import { MAX_REQUESTS_PER_CALL } from "@floodgate/queue";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_ENV } from "./support/coupon-test-kit.ts";
import {
  expectProblem,
  get,
  metricValue,
  post,
  reservationsStruckOff,
  totalStreamLength,
} from "./support/intake-test-kit.ts";
import { createProduct } from "./support/product-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;
let productId: string;

beforeAll(async () => {
  env = await createTestEnvironment("orders-accept", { env: ADMIN_ENV });
  app = await buildApp(env.config, { logger: false });
  await app.ready();
  productId = (await createProduct(app, { stock: 20, price: 700 })).id;
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

const scrape = async () => (await get(app, "/metrics")).body;
const redisCommands = async () => metricValue(await scrape(), "floodgate_intake_redis_commands_total");
const available = async () =>
  Number(await app.redis.hget(app.queueKeys.productState(productId), "available"));
const order = (changes: Record<string, unknown> = {}) => ({
  userId: "edge-buyer",
  items: [{ productId, quantity: 1 }],
  ...changes,
});
// The table below is built before any product exists; a well-formed id is all a refused body needs.
const WELL_FORMED = "prd_01KAAAAAAAAAAAAAAAAAAAAAAA";
const line = (changes: Record<string, unknown> = {}) => ({ productId: WELL_FORMED, quantity: 1, ...changes });
const body = (changes: Record<string, unknown> = {}) => ({
  userId: "edge-buyer",
  items: [line()],
  ...changes,
});

describe("POST /v1/orders", () => {
  // On a Redis Cluster (reserve-order-in-two-steps.ts): admit + the product's reservation (one round trip) and
  // the commit, 3 commands for a one-product order; after the answer its reservation is struck off by a ZREM
  // shared with the other orders answered in the same turn (reservation-strike-offs.ts).
  const onCluster = process.env.FLOODGATE_TEST_REDIS === "cluster";
  it(`costs ${onCluster ? "3 Redis commands (2 round trips) and at most one shared ZREM" : "at most one Redis command (those of one turn share one)"} per accepted order, and reports the product's stock and the decisions`, async () => {
    expect((await post(app, "/v1/orders", order())).statusCode).toBe(202); // warm-up: the script may load
    // Each count once the strike-offs sent after the answers have gone: the warm-up's before, the five's after.
    const struckOff = () => reservationsStruckOff(app, app.queueKeys.productReservations(productId));
    await struckOff();
    const start = await redisCommands();
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => post(app, "/v1/orders", order({ userId: `edge-${i}` }))),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(5).fill(202));
    await struckOff();
    const sent = (await redisCommands()) - start;
    if (onCluster) {
      expect(sent).toBeGreaterThanOrEqual(5 * 3 + 1);
      expect(sent).toBeLessThanOrEqual(5 * 4);
    } else {
      // Orders read in one turn share a script call (turn-batches.ts in @floodgate/redis-scripts, up to
      // MAX_REQUESTS_PER_CALL a call): never more than one each.
      expect(sent).toBeGreaterThanOrEqual(Math.ceil(5 / MAX_REQUESTS_PER_CALL));
      expect(sent).toBeLessThanOrEqual(5);
    }

    expect((await post(app, "/v1/orders", order({ items: [{ productId, quantity: 50 }] }))).statusCode).toBe(
      409,
    );
    const text = await scrape();
    expect(metricValue(text, "floodgate_product_available", { product: productId })).toBe(14);
    expect(metricValue(text, "floodgate_order_reservations_total", { outcome: "accepted" })).toBe(6);
    expect(metricValue(text, "floodgate_order_reservations_total", { outcome: "out_of_stock" })).toBe(1);
  });

  it.each([
    ["no items", body({ items: [] }), "items"],
    ["21 lines", body({ items: Array.from({ length: 21 }, () => line()) }), "items"],
    ["a quantity of 0", body({ items: [line({ quantity: 0 })] }), "items.0.quantity"],
    ["a quantity of 101", body({ items: [line({ quantity: 101 })] }), "items.0.quantity"],
    ["a fractional quantity", body({ items: [line({ quantity: 1.5 })] }), "items.0.quantity"],
    ["a quantity as a string", body({ items: [line({ quantity: "1" })] }), "items.0.quantity"],
    ["a malformed productId", body({ items: [line({ productId: "prd_nope" })] }), "items.0.productId"],
    ["a line with an unknown field", body({ items: [line({ quantity: 1, price: 1 })] }), "items.0.price"],
    ["a price in the body", body({ amount: 1 }), "amount"],
    ["a malformed couponIssueId", body({ couponIssueId: "cis_nope" }), "couponIssueId"],
    [
      "a payment id as couponIssueId",
      body({ couponIssueId: "pay_01KAAAAAAAAAAAAAAAAAAAAAAA" }),
      "couponIssueId",
    ],
    ["a bad userId", body({ userId: "a b" }), "userId"],
  ])("refuses %s with 400 naming %s, reserving and enqueuing nothing", async (_, refused, field) => {
    const [before, queued] = [await available(), await totalStreamLength(app)];
    const commands = await redisCommands();
    expectProblem(await post(app, "/v1/orders", refused), 400, "validation_error", field);
    expect(await redisCommands()).toBe(commands);
    expect([await available(), await totalStreamLength(app)]).toEqual([before, queued]);
  });

  it("refuses a bad Idempotency-Key with 400 naming it", async () => {
    expectProblem(
      await post(app, "/v1/orders", order(), { "idempotency-key": "has space" }),
      400,
      "invalid_idempotency_key",
      "Idempotency-Key",
    );
  });
});
