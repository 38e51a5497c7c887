// The per-user cap on unpaid units of a product (issue 17), at the edge: checked in the reserve script of the
// order's one round trip, over every order the user has not paid yet (no worker runs here, so every accepted
// order stays unpaid). A refusal is a 409 unit_limit_exceeded naming the product's line, what it asks, what the
// user holds and the limit, and reserves nothing. Paying, cancelling and expiring are in the worker's tests
// (apps/worker/test/orders-unit-limit.test.ts).
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_ENV, createCoupon, issue } from "./support/coupon-test-kit.ts";
import { expectProblem, post, totalStreamLength } from "./support/intake-test-kit.ts";
import { createProduct, getProduct, patchProduct } from "./support/product-test-kit.ts";

/** The deployment's default here: small, so a test reaches it in a few orders. */
const DEFAULT_CAP = 6;

let env: TestEnvironment;
let app: FastifyInstance;

beforeAll(async () => {
  env = await createTestEnvironment("orders-unit-limit", {
    env: { ...ADMIN_ENV, MAX_UNITS_PER_USER: String(DEFAULT_CAP) },
  });
  app = await buildApp(env.config, { logger: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

const order = (userId: string, items: { productId: string; quantity: number }[], key?: string) =>
  post(app, "/v1/orders", { userId, items }, key === undefined ? {} : { "idempotency-key": key });
const one = (userId: string, productId: string, quantity: number) => order(userId, [{ productId, quantity }]);
const available = async (productId: string) =>
  Number(await app.redis.hget(app.queueKeys.productState(productId), "available"));
const held = async (productId: string, userId: string) =>
  Number((await app.redis.get(app.queueKeys.unpaidUnits(productId, userId))) ?? 0);
/** What a refused order must leave as it found it. */
const snapshot = async (productId: string, userId: string) => ({
  available: await available(productId),
  held: await held(productId, userId),
  queued: await totalStreamLength(app),
});

describe("a product's own maxUnitsPerUser", () => {
  it("lets a user hold up to it across several unpaid orders, then refuses with 409 and reserves nothing", async () => {
    const { id: productId } = await createProduct(app, { stock: 50, price: 1000, maxUnitsPerUser: 5 });
    expect((await one("holder", productId, 2)).statusCode).toBe(202);
    expect((await one("holder", productId, 3)).statusCode).toBe(202);
    expect(await held(productId, "holder")).toBe(5);

    const before = await snapshot(productId, "holder");
    expect(before.available).toBe(45);
    const refused = expectProblem(await one("holder", productId, 1), 409, "unit_limit_exceeded", "items");
    expect(refused.retryable).toBe(false);
    expect(refused.lines).toEqual([{ line: 1, productId, requested: 1, held: 5, limit: 5 }]);
    expect(await snapshot(productId, "holder")).toEqual(before);
  });

  it("leaves another user unaffected", async () => {
    const { id: productId } = await createProduct(app, { stock: 50, maxUnitsPerUser: 3 });
    expect((await one("first", productId, 3)).statusCode).toBe(202);
    expect((await one("first", productId, 1)).statusCode).toBe(409);
    expect((await one("second", productId, 3)).statusCode).toBe(202);
    expect(await held(productId, "second")).toBe(3);
    expect(await available(productId)).toBe(44);
  });

  it("counts a product's lines of one order together, and refuses the whole order (all or nothing)", async () => {
    const { id: capped } = await createProduct(app, { stock: 50, maxUnitsPerUser: 4 });
    const { id: free } = await createProduct(app, { stock: 50 });
    const before = [await snapshot(capped, "liner"), await snapshot(free, "liner")];
    const response = await order("liner", [
      { productId: free, quantity: 1 },
      { productId: capped, quantity: 3 },
      { productId: capped, quantity: 2 },
    ]);
    const refused = expectProblem(response, 409, "unit_limit_exceeded", "items");
    expect(refused.lines).toEqual([{ line: 2, productId: capped, requested: 5, held: 0, limit: 4 }]);
    expect([await snapshot(capped, "liner"), await snapshot(free, "liner")]).toEqual(before);
  });

  it("still answers out_of_stock for an order larger than the stock", async () => {
    const { id: productId } = await createProduct(app, { stock: 2, maxUnitsPerUser: 1 });
    const refused = expectProblem(await one("short", productId, 3), 409, "out_of_stock", "items");
    expect(refused.lines).toEqual([{ line: 1, productId, requested: 3, available: 2 }]);
  });

  it("does not count an idempotent replay twice", async () => {
    const { id: productId } = await createProduct(app, { stock: 50, maxUnitsPerUser: 4 });
    const first = await order("replayer", [{ productId, quantity: 4 }], "unit-cap-replay");
    const again = await order("replayer", [{ productId, quantity: 4 }], "unit-cap-replay");
    expect([first.statusCode, again.statusCode]).toEqual([202, 202]);
    expect(again.json().id).toBe(first.json().id);
    expect(await held(productId, "replayer")).toBe(4);
    expect(await available(productId)).toBe(46);
  });
});

describe("an order with nothing to pay", () => {
  it("does not count: a coupon covered it, so it is paid once recorded", async () => {
    const { id: productId } = await createProduct(app, { stock: 50, price: 1000, maxUnitsPerUser: 3 });
    const coupon = await createCoupon(app, { discount: { type: "fixed", value: 3000 } });
    const issued = await issue(app, coupon.id, "covered");
    expect(issued.statusCode, issued.body).toBe(202);
    const response = await post(app, "/v1/orders", {
      userId: "covered",
      items: [{ productId, quantity: 3 }],
      couponIssueId: issued.json().id,
    });
    expect(response.statusCode, response.body).toBe(202);
    expect(response.json().amount).toBe(0);
    expect(await held(productId, "covered")).toBe(0);
    expect(await app.redis.exists(app.queueKeys.unpaidUnits(productId, "covered"))).toBe(0);
    expect((await one("covered", productId, 3)).statusCode).toBe(202);
    expect(await held(productId, "covered")).toBe(3);
  });
});

describe("the deployment's default (MAX_UNITS_PER_USER)", () => {
  it("applies to a product without a cap of its own, and GET shows it", async () => {
    const product = await createProduct(app, { stock: 50 });
    expect(product.maxUnitsPerUser).toBe(DEFAULT_CAP);
    expect((await getProduct(app, product.id)).json().maxUnitsPerUser).toBe(DEFAULT_CAP);
    expect((await one("defaulted", product.id, DEFAULT_CAP)).statusCode).toBe(202);
    const refused = expectProblem(await one("defaulted", product.id, 1), 409, "unit_limit_exceeded");
    expect(refused.lines).toEqual([
      { line: 1, productId: product.id, requested: 1, held: DEFAULT_CAP, limit: DEFAULT_CAP },
    ]);
  });

  it("refuses one order larger than the cap even when the user holds nothing", async () => {
    const { id: productId } = await createProduct(app, { stock: 50 });
    const before = await snapshot(productId, "greedy");
    const refused = expectProblem(
      await one("greedy", productId, DEFAULT_CAP + 1),
      409,
      "unit_limit_exceeded",
    );
    expect(refused.lines).toEqual([
      { line: 1, productId, requested: DEFAULT_CAP + 1, held: 0, limit: DEFAULT_CAP },
    ]);
    expect(await snapshot(productId, "greedy")).toEqual(before);
  });
});

describe("PATCH maxUnitsPerUser", () => {
  it("changes the cap the next order meets; units already held stay held", async () => {
    const { id: productId } = await createProduct(app, { stock: 50, maxUnitsPerUser: 2 });
    expect((await one("patched", productId, 2)).statusCode).toBe(202);
    expect((await one("patched", productId, 1)).statusCode).toBe(409);

    expect((await patchProduct(app, productId, { maxUnitsPerUser: 5 })).statusCode).toBe(200);
    expect((await one("patched", productId, 3)).statusCode).toBe(202);
    expect(await held(productId, "patched")).toBe(5);

    expect((await patchProduct(app, productId, { maxUnitsPerUser: 3 })).json().maxUnitsPerUser).toBe(3);
    const refused = expectProblem(await one("patched", productId, 1), 409, "unit_limit_exceeded");
    expect(refused.lines).toEqual([{ line: 1, productId, requested: 1, held: 5, limit: 3 }]);
    expect(await held(productId, "patched")).toBe(5);
    expect(await available(productId)).toBe(45);
  });
});
