// POST and GET /v1/products: a product row in the global database and its sale state in Redis, read back from
// both. Validation is as strict as payments: a bad field is a 400 naming it, and nothing is written to either
// store. Changes (PATCH) are in products-change.test.ts.
import { deleteProductState } from "@floodgate/reservations";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { ADMIN_ENV, ADMIN_KEY, adminHeaders } from "./support/coupon-test-kit.ts";
import { documentedInject, expectProblem, post } from "./support/intake-test-kit.ts";
import {
  createProduct,
  getProduct,
  patchProduct,
  productBody,
  productRow,
  productRows,
  productState,
  productStateKeys,
  reserve,
  stores,
  UNKNOWN_PRODUCT_ID,
  warningLog,
} from "./support/product-test-kit.ts";

let env: TestEnvironment;
let app: FastifyInstance;
const warnings = warningLog();

beforeAll(async () => {
  env = await createTestEnvironment("products-admin", { env: ADMIN_ENV });
  app = await buildApp(env.config, { logger: warnings.logger });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

describe("POST /v1/products", () => {
  it("answers 201 + Location with the view, and stores the row in Postgres and the state in Redis", async () => {
    const response = await post(
      app,
      "/v1/products",
      { name: "Payday sneakers", price: 129_000, stock: 50 },
      adminHeaders(),
    );
    expect(response.statusCode, response.body).toBe(201);
    const product = response.json();
    expect(product).toEqual({
      id: expect.stringMatching(/^prd_[0-9A-HJKMNP-TV-Z]{26}$/),
      name: "Payday sneakers",
      price: 129_000,
      stock: 50,
      received: 50,
      available: 50,
      maxUnitsPerUser: env.config.maxUnitsPerUser, // none of its own: the deployment's default
      createdAt: expect.any(String),
      updatedAt: product.createdAt,
    });
    expect(response.headers.location).toBe(`/v1/products/${product.id}`);

    const row = await productRow(app, product.id);
    expect(row).toMatchObject({ name: "Payday sneakers", price: 129_000, stock: 50, received: 50 });
    expect(row.created_at.toISOString()).toBe(product.createdAt);
    expect(await productState(app, product.id)).toEqual({ price: "129000", available: "50" });
    expect(row.max_units_per_user).toBeNull();
  });

  it("stores a product's own maxUnitsPerUser in Postgres and Redis, and shows it", async () => {
    const product = await createProduct(app, { stock: 30, maxUnitsPerUser: 3 });
    expect(product.maxUnitsPerUser).toBe(3);
    expect(await productRow(app, product.id)).toMatchObject({ max_units_per_user: 3 });
    expect(await productState(app, product.id)).toEqual({
      price: "129000",
      available: "30",
      maxUnitsPerUser: "3",
    });
    const read = await getProduct(app, product.id);
    expect(read.json()).toEqual(product);
  });

  it.each([
    ["stock 0 (announced, not yet on sale)", { stock: 0 }],
    ["stock 10^7", { stock: 10_000_000 }],
    ["price 1", { price: 1 }],
    ["price 10^12", { price: 1_000_000_000_000 }],
    ["a 200-character name", { name: "n".repeat(200) }],
    ["a name beyond ASCII", { name: "한정판 스니커즈 👟" }],
    ["maxUnitsPerUser 1", { maxUnitsPerUser: 1 }],
    ["maxUnitsPerUser 10^6", { maxUnitsPerUser: 1_000_000 }],
  ])("accepts the edge: %s", async (_, changes) => {
    const product = await createProduct(app, changes);
    const body = productBody(changes);
    expect(product).toMatchObject({ ...body, received: body.stock, available: body.stock });
    expect(await productState(app, product.id)).toEqual({
      price: String(body.price),
      available: String(body.stock),
      ...(body.maxUnitsPerUser === undefined ? {} : { maxUnitsPerUser: String(body.maxUnitsPerUser) }),
    });
  });

  const bad: [string, unknown, string][] = [
    ["no body fields", {}, "name"],
    ["a missing name", { ...productBody(), name: undefined }, "name"],
    ["an empty name", productBody({ name: "" }), "name"],
    ["a 201-character name", productBody({ name: "n".repeat(201) }), "name"],
    ["a name with a newline", productBody({ name: "a\nb" }), "name"],
    ["a name as a number", { ...productBody(), name: 7 }, "name"],
    ["a missing price", { ...productBody(), price: undefined }, "price"],
    ["price 0", productBody({ price: 0 }), "price"],
    ["price -1", productBody({ price: -1 }), "price"],
    ["price over 10^12", productBody({ price: 10 ** 12 + 1 }), "price"],
    ["price 99.5", productBody({ price: 99.5 }), "price"],
    ["price as a string", { ...productBody(), price: "100" }, "price"],
    ["price null", { ...productBody(), price: null }, "price"],
    ["a missing stock", { ...productBody(), stock: undefined }, "stock"],
    ["stock -1", productBody({ stock: -1 }), "stock"],
    ["stock over 10^7", productBody({ stock: 10_000_001 }), "stock"],
    ["stock 2.5", productBody({ stock: 2.5 }), "stock"],
    ["stock as a string", { ...productBody(), stock: "5" }, "stock"],
    ["maxUnitsPerUser 0", productBody({ maxUnitsPerUser: 0 }), "maxUnitsPerUser"],
    ["maxUnitsPerUser over 10^6", productBody({ maxUnitsPerUser: 1_000_001 }), "maxUnitsPerUser"],
    ["maxUnitsPerUser 2.5", productBody({ maxUnitsPerUser: 2.5 }), "maxUnitsPerUser"],
    ["maxUnitsPerUser as a string", { ...productBody(), maxUnitsPerUser: "5" }, "maxUnitsPerUser"],
    ["maxUnitsPerUser null", { ...productBody(), maxUnitsPerUser: null }, "maxUnitsPerUser"],
    ["an unknown field", { ...productBody(), received: 5 }, "received"],
    ["a JSON array", [productBody()], "body"],
  ];

  it.each(bad)("refuses %s with a 400 naming the field, and writes nothing", async (_, body, field) => {
    const before = await stores(app);
    expectProblem(await post(app, "/v1/products", body, adminHeaders()), 400, "validation_error", field);
    expect(await stores(app)).toEqual(before);
  });

  it("refuses malformed JSON and other content types, and writes nothing", async () => {
    const before = await stores(app);
    const malformed = await documentedInject(app, {
      method: "POST",
      url: "/v1/products",
      headers: { ...adminHeaders(), "content-type": "application/json" },
      payload: '{"name": ',
    });
    expectProblem(malformed, 400, "malformed_json", "body");
    const text = await documentedInject(app, {
      method: "POST",
      url: "/v1/products",
      headers: { ...adminHeaders(), "content-type": "text/plain" },
      payload: JSON.stringify(productBody()),
    });
    expectProblem(text, 415, "unsupported_media_type", "Content-Type");
    expect(await stores(app)).toEqual(before);
  });
});

describe("admin authentication", () => {
  const refusals: [string, Record<string, string>][] = [
    ["no Authorization header", {}],
    ["a wrong key", adminHeaders(`${ADMIN_KEY.slice(0, -1)}X`)],
    ["the key without the scheme", { authorization: ADMIN_KEY }],
  ];

  it.each(refusals)("answers 401 to every product route for %s, and writes nothing", async (_, headers) => {
    const product = await createProduct(app);
    const before = await stores(app);
    const answers = [
      // Exactly these headers (the test kit's `post` would add the server key to the first case).
      await documentedInject(app, { method: "POST", url: "/v1/products", headers, payload: productBody() }),
      await patchProduct(app, product.id, { price: 1, stockAdded: 1 }, headers),
      await getProduct(app, product.id, headers),
    ];
    for (const response of answers) {
      expectProblem(response, 401, "unauthorized", "Authorization");
      expect(response.headers["www-authenticate"]).toMatch(/^Bearer realm="floodgate-admin"/);
    }
    expect(await stores(app)).toEqual(before);
  });
});

describe("GET /v1/products/:productId", () => {
  it("answers stock and received from Postgres, and available from Redis", async () => {
    const product = await createProduct(app, { stock: 20 });
    await reserve(app, product.id, 4);
    const response = await getProduct(app, product.id);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ ...product, stock: 20, received: 20, available: 16 });
  });

  it("answers available null, and logs a warning, when Redis has no state for the product", async () => {
    const product = await createProduct(app);
    await deleteProductState(app.redis, app.queueKeys, product.id);
    const response = await getProduct(app, product.id);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ ...product, available: null });
    expect(warnings.about(product.id)).toHaveLength(1);
  });

  it.each([
    ["a word", "nope"],
    ["a coupon id", "cpn_01KAQ2XD5G7Z3V4W5X6Y7Z8A9B"],
    ["lower case", `prd_${"a".repeat(26)}`],
    ["one character short", `prd_${"0".repeat(25)}`],
    ["a letter base32 leaves out", `prd_${"0".repeat(25)}U`],
  ])("answers 400 naming productId for a malformed id: %s", async (_, id) => {
    expectProblem(await getProduct(app, id), 400, "validation_error", "productId");
  });

  it("answers 404 for an unknown product", async () => {
    expectProblem(await getProduct(app, UNKNOWN_PRODUCT_ID), 404, "not_found", "productId");
  });
});

describe("after every request above", () => {
  it("Redis holds product state only for products Postgres has", async () => {
    const ids = new Set((await productRows(app)).map((row) => row.id));
    const keys = await productStateKeys(app);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(ids).toContain(/\{(prd_[^}]+)\}/.exec(key)![1]);
  });
});
