// Shared by the coupon test files: the admin key their environments use, and requests that create coupons
// and ask for them.
import { scanKeys } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { expect } from "vitest";
import { post } from "./intake-test-kit.ts";

export const ADMIN_KEY = "test-admin-key-0123456789abcdef";
export const ADMIN_ENV = { ADMIN_API_KEY: ADMIN_KEY };
export const adminHeaders = (key = ADMIN_KEY) => ({ authorization: `Bearer ${key}` });

export interface CouponBody {
  name?: string;
  quantity?: number;
  startsAt?: string;
  endsAt?: string;
  discount?: { type: "fixed" | "percent"; value: number };
}

export const couponBody = (changes: CouponBody = {}) => ({
  name: "Black Friday 10%",
  quantity: 100,
  discount: { type: "percent", value: 10 },
  ...changes,
});

/** Creates a coupon through the admin route and returns its definition (fails the test on anything but 201). */
export async function createCoupon(app: FastifyInstance, changes: CouponBody = {}) {
  const response = await post(app, "/v1/coupons", couponBody(changes), adminHeaders());
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as { id: string; quantity: number } & Record<string, unknown>;
}

export const issue = (app: FastifyInstance, couponId: string, userId: string) =>
  post(app, `/v1/coupons/${couponId}/issues`, { userId });

export const isoIn = (ms: number) => new Date(Date.now() + ms).toISOString();

/**
 * Ids of the coupons that have state in Redis (one SCAN of the whole keyspace, on every master of a cluster:
 * slow on a busy Redis, so tests call it once, not per request).
 */
export async function couponStateIds(app: FastifyInstance): Promise<string[]> {
  const keys = await scanKeys(app.redis, `${app.config.redisPrefix}{cpn_*}:coupon`, { count: 50_000 });
  return keys.map((key) => /\{(cpn_[^}]+)\}/.exec(key)![1]!).sort();
}

/** Redis holds state for exactly the coupons the global database defines: a refused create wrote neither. */
export async function expectRedisStateMatchesDefinitions(app: FastifyInstance) {
  const rows = await app.globalDb.selectFrom("coupons").select("id").orderBy("id").execute();
  expect(await couponStateIds(app)).toEqual(rows.map((row) => row.id));
}
