// Products and orders through the real intake (buildApp + inject), and the stock invariant read from the
// databases and Redis.
import { auditProducts, type GlobalDatabase, type ProductAudit, type ShardDatabase } from "@floodgate/db";
import type { QueueKeys } from "@floodgate/queue";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { readAvailable } from "@floodgate/reservations";
import type { Kysely } from "kysely";
import { ADMIN_KEY } from "./coupon-client.ts";
import { asShop, documentedInject, type IntakeApp, readAsShop, writeAsShop } from "./intake-client.ts";

const admin = { authorization: `Bearer ${ADMIN_KEY}` };

export async function createProduct(
  app: IntakeApp,
  stock: number,
  price = 1000,
  maxUnitsPerUser?: number,
): Promise<string> {
  const response = await documentedInject(app, {
    method: "POST",
    url: "/v1/products",
    headers: admin,
    payload: { name: `product of ${stock}`, price, stock, ...(maxUnitsPerUser ? { maxUnitsPerUser } : {}) },
  });
  if (response.statusCode !== 201)
    throw new Error(`product refused: ${response.statusCode} ${response.body}`);
  return response.json().id;
}

export interface OrderRequest {
  userId: string;
  items: { productId: string; quantity: number }[];
  couponIssueId?: string;
}

export const placeOrder = (app: IntakeApp, body: OrderRequest, idempotencyKey?: string) =>
  documentedInject(app, {
    method: "POST",
    url: "/v1/orders",
    payload: body,
    headers: asShop(app, idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
  });

export const cancelOrder = (app: IntakeApp, orderId: string) =>
  documentedInject(app, { method: "POST", url: `/v1/orders/${orderId}/cancel`, headers: asShop(app) });

export async function orderView(app: IntakeApp, orderId: string) {
  const response = await readAsShop(app, `/v1/orders/${orderId}`);
  if (response.statusCode !== 200) throw new Error(`GET order: ${response.statusCode} ${response.body}`);
  return response.json();
}

export async function payOrder(app: IntakeApp, userId: string, orderId: string, amount: number) {
  const response = await writeAsShop(app, "/v1/payments", { userId, amount, orderId });
  if (response.statusCode !== 202)
    throw new Error(`payment refused: ${response.statusCode} ${response.body}`);
  return response.json().id as string;
}

export async function operationView(app: IntakeApp, path: string) {
  const response = await documentedInject(app, { method: "GET", url: path, headers: asShop(app) });
  return response.statusCode === 200 ? response.json() : null;
}

export interface StockState extends ProductAudit {
  /** Redis' stock for new orders (null when its state is missing). */
  available: number | null;
}

/** The audit of the databases plus Redis' counter, per product. */
export async function stockState(
  global: Kysely<GlobalDatabase>,
  shards: Kysely<ShardDatabase>[],
  redis: ScriptedRedis,
  keys: QueueKeys,
  productIds: string[],
): Promise<StockState[]> {
  const audits = await auditProducts(global, shards, productIds);
  const available = await readAvailable(
    redis,
    keys,
    audits.map((a) => a.productId),
  );
  return audits.map((audit, i) => ({ ...audit, available: available[i] ?? null }));
}
