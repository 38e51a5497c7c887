// GET /v1/catalog/products/:productId: the public face of a product for shop pages (no admin key), with the
// price and the units new orders may still reserve as Redis holds them, and its name remembered once read.
import { deleteProductState } from "@floodgate/reservations";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_ENV } from "./support/coupon-test-kit.ts";
import { expectProblem, get } from "./support/intake-test-kit.ts";
import {
  createProduct,
  patchProduct,
  reserve,
  UNKNOWN_PRODUCT_ID,
  warningLog,
} from "./support/product-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;
const warnings = warningLog();

beforeAll(async () => {
  env = await createTestEnvironment("catalog-products", { env: ADMIN_ENV });
  app = await buildApp(env.config, { logger: warnings.logger });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

const catalog = (productId: string) => get(app, `/v1/catalog/products/${productId}`);

describe("GET /v1/catalog/products/:productId", () => {
  it("answers the product's name, price, currency and available units, without an admin key", async () => {
    const product = await createProduct(app, { name: "Flash-sale kettle", price: 39_000, stock: 12 });
    const response = await catalog(product.id);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      id: product.id,
      name: "Flash-sale kettle",
      price: 39_000,
      currency: "KRW",
      available: 12,
    });
  });

  it("follows the Redis state: reservations, a new price and added stock", async () => {
    const product = await createProduct(app, { price: 5000, stock: 10 });
    await reserve(app, product.id, 3);
    expect((await catalog(product.id)).json()).toMatchObject({ price: 5000, available: 7 });
    expect((await patchProduct(app, product.id, { price: 4500, stockAdded: 5 })).statusCode).toBe(200);
    expect((await catalog(product.id)).json()).toMatchObject({ price: 4500, available: 12 });
  });

  it("reads the name from Postgres once: a warm read is Redis only", async () => {
    const product = await createProduct(app, { name: "Read once" });
    expect((await catalog(product.id)).json().name).toBe("Read once");
    // No route can rename a product; changed behind the API's back, the remembered name shows it was not read.
    await app.globalDb
      .updateTable("products")
      .set({ name: "Renamed in SQL" })
      .where("id", "=", product.id)
      .execute();
    expect((await catalog(product.id)).json().name).toBe("Read once");
  });

  it("answers none available, with the stored price, while the Redis state is missing", async () => {
    const product = await createProduct(app, { price: 2500, stock: 4 });
    await deleteProductState(app.redis, app.queueKeys, product.id);
    const response = await catalog(product.id);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ price: 2500, available: 0 });
    expect(warnings.about(product.id).length).toBeGreaterThan(0);
  });

  it("answers 404 naming the product for an id nobody minted", async () => {
    expectProblem(await catalog(UNKNOWN_PRODUCT_ID), 404, "not_found", "productId");
  });

  it.each([
    ["not an id", "nope"],
    ["a lowercase id", `prd_${"a".repeat(26)}`],
    ["an operation id", "pay_01M80JPZKW9CHTKTTMJT7FAZ06"],
  ])("answers 400 naming the product id for %s", async (_, productId) => {
    expectProblem(await catalog(productId), 400, "validation_error", "productId");
  });
});
