// Shared by the product test files: admin requests on products, and what Postgres and Redis hold for them.
import type { FastifyInstance } from "fastify";
import { expect } from "vitest";
import { adminHeaders } from "./coupon-test-kit.ts";
import { documentedInject, post, prefixKeys } from "./intake-test-kit.ts";

export interface ProductBody {
  name?: string;
  price?: number;
  stock?: number;
  maxUnitsPerUser?: number;
}

export const productBody = (changes: ProductBody = {}) => ({
  name: "Limited sneakers",
  price: 129_000,
  stock: 50,
  ...changes,
});

export interface ProductJson {
  id: string;
  name: string;
  price: number;
  stock: number;
  received: number;
  available: number | null;
  /** The cap in force: the product's own, or MAX_UNITS_PER_USER. */
  maxUnitsPerUser: number;
  createdAt: string;
  updatedAt: string;
}

/** Creates a product through the admin route (fails the test on anything but 201). */
export async function createProduct(app: FastifyInstance, changes: ProductBody = {}): Promise<ProductJson> {
  const response = await post(app, "/v1/products", productBody(changes), adminHeaders());
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

export const patchProduct = (
  app: FastifyInstance,
  productId: string,
  body: unknown,
  headers: Record<string, string> = adminHeaders(),
) =>
  documentedInject(app, {
    method: "PATCH",
    url: `/v1/products/${productId}`,
    headers,
    payload: body as object,
  });

export const getProduct = (
  app: FastifyInstance,
  productId: string,
  headers: Record<string, string> = adminHeaders(),
) => documentedInject(app, { method: "GET", url: `/v1/products/${productId}`, headers });

export const productRows = (app: FastifyInstance) =>
  app.globalDb.selectFrom("products").selectAll().orderBy("id").execute();

export const productRow = (app: FastifyInstance, productId: string) =>
  app.globalDb.selectFrom("products").selectAll().where("id", "=", productId).executeTakeFirstOrThrow();

/** The product's Redis hash as Redis holds it (strings; {} when there is none). */
export const productState = (app: FastifyInstance, productId: string) =>
  app.redis.hgetall(app.queueKeys.productState(productId));

/** Every product state key under the app's prefix (one SCAN of every master). */
export const productStateKeys = async (app: FastifyInstance) =>
  (await prefixKeys(app)).filter((key) => key.endsWith(":product"));

/** Everything a refused request must leave as it found it: the product rows and the Redis product states. */
export const stores = async (app: FastifyInstance) => ({
  rows: await productRows(app),
  keys: await productStateKeys(app),
});

/** Takes units as reserve-order-n.lua does when it accepts an order. */
export const reserve = (app: FastifyInstance, productId: string, units: number) =>
  app.redis.hincrby(app.queueKeys.productState(productId), "available", -units);

/** A logger for buildApp that keeps the warnings, and a way to find those about one product. */
export function warningLog() {
  const lines: string[] = [];
  return {
    logger: { level: "warn", stream: { write: (line: string) => lines.push(line) } },
    about: (productId: string) =>
      lines
        .map((line) => JSON.parse(line) as { level: number; product?: string; msg: string })
        .filter((line) => line.level === 40 && line.product === productId),
  };
}

/** Well-formed, and never minted (its time part is 1970). */
export const UNKNOWN_PRODUCT_ID = `prd_${"0".repeat(26)}`;
