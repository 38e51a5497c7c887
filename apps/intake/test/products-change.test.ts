// PATCH /v1/products/:productId: a new price and/or stockAdded more units, in one Postgres statement, then in
// the product's Redis state (never creating a partial one). Stock only ever grows by an increment, so units
// reserved by orders in flight stay reserved. A bad field is a 400 naming it, and changes nothing.
import { deleteProductState } from "@floodgate/reservations";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_ENV, adminHeaders } from "./support/coupon-test-kit.ts";
import { documentedInject, expectProblem } from "./support/intake-test-kit.ts";
import {
  createProduct,
  getProduct,
  patchProduct,
  productRow,
  productState,
  reserve,
  stores,
  UNKNOWN_PRODUCT_ID,
  warningLog,
} from "./support/product-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;
const warnings = warningLog();

beforeAll(async () => {
  env = await createTestEnvironment("products-change", { env: ADMIN_ENV });
  app = await buildApp(env.config, { logger: warnings.logger });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

describe("PATCH /v1/products/:productId", () => {
  it("changes the price in Postgres and in Redis, leaving stock alone", async () => {
    const product = await createProduct(app, { price: 129_000, stock: 10 });
    const response = await patchProduct(app, product.id, { price: 99_000 });
    expect(response.statusCode, response.body).toBe(200);
    const changed = response.json();
    expect(changed).toEqual({
      ...product,
      price: 99_000,
      updatedAt: expect.any(String),
    });

    const row = await productRow(app, product.id);
    expect(row).toMatchObject({ price: 99_000, stock: 10, received: 10 });
    expect(row.updated_at.toISOString()).toBe(changed.updatedAt);
    const { stamped } = await app.globalDb
      .selectFrom("products")
      .select(sql<boolean>`updated_at > created_at`.as("stamped"))
      .where("id", "=", product.id)
      .executeTakeFirstOrThrow();
    expect(stamped).toBe(true);
    expect(await productState(app, product.id)).toEqual({ price: "99000", available: "10" });
  });

  it("adds stock by an increment: stock and received grow in Postgres, available in Redis, reservations kept", async () => {
    const product = await createProduct(app, { stock: 10 });
    await reserve(app, product.id, 3); // an accepted order still in the queue

    const response = await patchProduct(app, product.id, { stockAdded: 5 });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ price: product.price, stock: 15, received: 15, available: 12 });
    expect(await productRow(app, product.id)).toMatchObject({ stock: 15, received: 15 });
    expect(await productState(app, product.id)).toEqual({ price: String(product.price), available: "12" });
  });

  it("changes price and stock together", async () => {
    const product = await createProduct(app, { price: 5000, stock: 0 });
    const response = await patchProduct(app, product.id, { price: 4500, stockAdded: 10_000_000 });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      price: 4500,
      stock: 10_000_000,
      received: 10_000_000,
      available: 10_000_000,
    });
    expect(await productRow(app, product.id)).toMatchObject({
      price: 4500,
      stock: 10_000_000,
      received: 10_000_000,
    });
    expect(await productState(app, product.id)).toEqual({ price: "4500", available: "10000000" });
  });

  it("changes maxUnitsPerUser in Postgres and in Redis, and GET shows it", async () => {
    const product = await createProduct(app, { stock: 10 });
    expect(product.maxUnitsPerUser).toBe(env.config.maxUnitsPerUser);
    const response = await patchProduct(app, product.id, { maxUnitsPerUser: 4 });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ ...product, maxUnitsPerUser: 4, updatedAt: expect.any(String) });
    expect(await productRow(app, product.id)).toMatchObject({
      max_units_per_user: 4,
      stock: 10,
      price: product.price,
    });
    expect(await productState(app, product.id)).toEqual({
      price: String(product.price),
      available: "10",
      maxUnitsPerUser: "4",
    });
    expect((await getProduct(app, product.id)).json()).toMatchObject({ maxUnitsPerUser: 4 });
  });

  const bad: [string, unknown, string][] = [
    ["an empty body", {}, "body"],
    ["maxUnitsPerUser 0", { maxUnitsPerUser: 0 }, "maxUnitsPerUser"],
    ["maxUnitsPerUser over 10^6", { maxUnitsPerUser: 1_000_001 }, "maxUnitsPerUser"],
    ["maxUnitsPerUser 1.5", { maxUnitsPerUser: 1.5 }, "maxUnitsPerUser"],
    ["stockAdded 0", { stockAdded: 0 }, "stockAdded"],
    ["stockAdded -5 (stock is never taken away here)", { stockAdded: -5 }, "stockAdded"],
    ["stockAdded over 10^7", { stockAdded: 10_000_001 }, "stockAdded"],
    ["stockAdded 1.5", { stockAdded: 1.5 }, "stockAdded"],
    ["stockAdded as a string", { stockAdded: "5" }, "stockAdded"],
    ["price 0", { price: 0 }, "price"],
    ["price over 10^12", { price: 10 ** 12 + 1 }, "price"],
    ["price as a string", { price: "100" }, "price"],
    ["price null", { price: null }, "price"],
    ["a good price beside a bad stockAdded", { price: 10, stockAdded: 0 }, "stockAdded"],
    ["a new name (not changeable)", { name: "Renamed" }, "name"],
    ["stock (only stockAdded changes it)", { stock: 5 }, "stock"],
    ["a JSON array", [{ price: 10 }], "body"],
  ];

  it.each(bad)("refuses %s with a 400 naming the field, and changes nothing", async (_, body, field) => {
    const product = await createProduct(app);
    const before = await stores(app);
    expectProblem(await patchProduct(app, product.id, body), 400, "validation_error", field);
    expect(await stores(app)).toEqual(before);
    expect(await productState(app, product.id)).toEqual({
      price: String(product.price),
      available: String(product.stock),
    });
  });

  it("refuses a request without a body, or with an empty JSON one, naming the body", async () => {
    const product = await createProduct(app);
    const before = await stores(app);
    const url = `/v1/products/${product.id}`;
    const bare = await documentedInject(app, { method: "PATCH", url, headers: adminHeaders() });
    expectProblem(bare, 400, "validation_error", "body");
    const empty = await documentedInject(app, {
      method: "PATCH",
      url,
      headers: { ...adminHeaders(), "content-type": "application/json" },
      payload: "",
    });
    expectProblem(empty, 400, "malformed_json", "body");
    expect(await stores(app)).toEqual(before);
  });

  it("answers 404 for an unknown product and 400 for a malformed id, and writes nothing", async () => {
    const before = await stores(app);
    expectProblem(
      await patchProduct(app, UNKNOWN_PRODUCT_ID, { stockAdded: 5 }),
      404,
      "not_found",
      "productId",
    );
    expectProblem(await patchProduct(app, "nope", { stockAdded: 5 }), 400, "validation_error", "productId");
    expect(await stores(app)).toEqual(before);
  });

  it("changes Postgres but writes no partial Redis state when the product has none, and warns", async () => {
    const product = await createProduct(app, { stock: 8 });
    await deleteProductState(app.redis, app.queueKeys, product.id);

    const response = await patchProduct(app, product.id, { price: 700, stockAdded: 2 });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ price: 700, stock: 10, received: 10, available: null });
    expect(await productRow(app, product.id)).toMatchObject({ price: 700, stock: 10, received: 10 });
    expect(await app.redis.exists(app.queueKeys.productState(product.id))).toBe(0);
    expect(warnings.about(product.id).map((line) => line.msg)).toEqual([
      expect.stringContaining("product state missing from Redis"),
    ]);
  });
});
