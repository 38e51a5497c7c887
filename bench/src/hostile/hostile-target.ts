// What every probe aims at: the intake's address, the credentials of its three kinds of caller, and real ids
// (a product, a coupon, a payment) so a request that is valid but for its one hostile part gets that far.
import { adminRequest } from "../admin-client.ts";

export interface HostileTarget {
  host: string;
  port: number;
  baseUrl: string;
  /** "Bearer <key>" of the shop's server, of the operator, of one shopper (userId). */
  serverAuthorization: string;
  adminAuthorization: string;
  customerAuthorization: string;
  /** The shopper's raw token, for a WebSocket's ?access_token=. */
  customerToken: string;
  userId: string;
  productId: string;
  couponId: string;
  /** A payment of the shopper's: the status socket's id. */
  operationId: string;
}

export interface TargetCredentials {
  baseUrl: string;
  serverKey: string;
  adminKey: string;
  customerToken: (userId: string) => Promise<string>;
}

/** Creates what the probes need (setup, not probed): a product, an open coupon, a shopper and a payment. */
export async function prepareTarget(credentials: TargetCredentials, runId: string): Promise<HostileTarget> {
  const { baseUrl, serverKey, adminKey } = credentials;
  const url = new URL(baseUrl);
  const userId = `hostile-${runId}`;
  const product = await adminRequest(baseUrl, adminKey, "POST", "/v1/products", {
    name: `hostile input ${runId}`,
    price: 100,
    stock: 1_000_000,
  });
  const coupon = await adminRequest(baseUrl, adminKey, "POST", "/v1/coupons", {
    name: `hostile input ${runId}`,
    quantity: 1_000_000,
    discount: { type: "fixed", value: 1 },
  });
  const customerToken = await credentials.customerToken(userId);
  const payment = await adminRequest(baseUrl, serverKey, "POST", "/v1/payments", { userId, amount: 1 });
  return {
    host: url.hostname,
    port: Number(url.port || 80),
    baseUrl,
    serverAuthorization: `Bearer ${serverKey}`,
    adminAuthorization: `Bearer ${adminKey}`,
    customerAuthorization: `Bearer ${customerToken}`,
    customerToken,
    userId,
    productId: idOf(product, "product"),
    couponId: idOf(coupon, "coupon"),
    operationId: idOf(payment, "payment"),
  };
}

function idOf(created: Record<string, unknown>, what: string): string {
  if (typeof created.id !== "string") throw new Error(`creating the ${what} answered without an id`);
  return created.id;
}
