// What every probe aims at: the intake's address, the credentials of its three kinds of caller, and real ids
// (a product, a coupon, a payment) so a request that is valid but for its one hostile part gets that far.
import { rawExchange, requestHead } from "./raw-http-exchange.ts";

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
  const call = setupCall(url);
  const product = await call(adminKey, "/v1/products", {
    name: `hostile input ${runId}`,
    price: 100,
    stock: 1_000_000,
  });
  const coupon = await call(adminKey, "/v1/coupons", {
    name: `hostile input ${runId}`,
    quantity: 1_000_000,
    discount: { type: "fixed", value: 1 },
  });
  const customerToken = await credentials.customerToken(userId);
  const payment = await call(serverKey, "/v1/payments", { userId, amount: 1 });
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

/**
 * A setup POST on a connection closed after it (Connection: close): a keep-alive one (fetch keeps them as long
 * as the server's 72 s hint) would still be open at the start's fd count and hide a client socket left over.
 */
export function setupCall(url: URL) {
  const host = url.hostname;
  const port = Number(url.port || 80);
  return async (key: string, path: string, body: unknown): Promise<Record<string, unknown>> => {
    const json = Buffer.from(JSON.stringify(body));
    const answer = await rawExchange({
      host,
      port,
      head: requestHead("POST", path, [
        ["Host", url.host],
        ["Authorization", `Bearer ${key}`],
        ["Content-Type", "application/json"],
        ["Content-Length", String(json.length)],
        ["Connection", "close"],
      ]),
      body: [json],
      timeoutMs: 10_000,
    });
    if (answer.status === null || answer.status >= 300) {
      throw new Error(`POST ${path}: ${answer.status ?? answer.error} ${answer.body.slice(0, 300)}`);
    }
    return JSON.parse(answer.body) as Record<string, unknown>;
  };
}
