// A flash sale that knows its stock (`./floodgate bench flash-sale --stock N`): one product of N units, a sale
// room guarding the orders that name it (issue 31), and each admitted shopper ordering one unit with its
// admission token and paying for it at once from its wallet. What the run must show: the room never admits
// more shoppers than units (plus its margin), nothing is oversold, and once the last unit is paid every socket
// still waiting is told `sold_out` within a second.
import { adminRequest } from "../harness/admin-client.ts";
import type { BenchIdentity } from "../harness/bench-identity.ts";
import type { KeepAliveClient } from "../harness/keep-alive-client.ts";
import { type LatencySummary, summarizeLatencies } from "../harness/latency-summary.ts";
import type { SaleCheck } from "./flash-sale-check.ts";
import type { Purchase, PurchaseAnswer, Shopper } from "./flash-sale-crowd.ts";
import { sendThroughShedding } from "./shed-retry.ts";

/** A unit's price: the bench's wallets hold far more (FUNDING_AMOUNT), so a payment never fails for money. */
export const UNIT_PRICE = 100;
/** The bound: sold out told to every waiting socket within this long of the last unit's payment. */
export const SOLD_OUT_PUSH_BOUND_MS = 1000;

export async function createSaleProduct(baseUrl: string, adminKey: string, stock: number): Promise<string> {
  const product = await adminRequest(baseUrl, adminKey, "POST", "/v1/products", {
    name: `flash sale of ${stock}`,
    price: UNIT_PRICE,
    stock,
  });
  if (typeof product.id !== "string")
    throw new Error(`the sale's product was not created: ${JSON.stringify(product)}`);
  return product.id;
}

/**
 * Orders one unit of `productId` with the admission token, then pays that order (the order is not guarded); each
 * request retried through load shedding as a shopper's page retries it, so a busy moment does not leave units
 * unsold (and the room never sold out).
 */
export function buyOneUnit(options: {
  client: KeepAliveClient;
  identity: BenchIdentity;
  productId: string;
  keyPrefix: string;
}): Purchase {
  const { client, identity, productId, keyPrefix } = options;
  return async (shopper: Shopper, admissionToken: string): Promise<PurchaseAnswer> => {
    const headers = identity.shopperHeaders(shopper.userId);
    const order = await sendThroughShedding(
      client,
      "/v1/orders",
      { userId: shopper.userId, items: [{ productId, quantity: 1 }] },
      {
        ...headers,
        "admission-token": admissionToken,
        "idempotency-key": `${keyPrefix}-order-${shopper.userId}`,
      },
    );
    if (order.status !== 202) return { ...order, orderStatus: order.status };
    const { id, amount } = JSON.parse(order.body) as { id: string; amount: number };
    const payment = await sendThroughShedding(
      client,
      "/v1/payments",
      { userId: shopper.userId, amount, orderId: id },
      { ...headers, "idempotency-key": `${keyPrefix}-pay-${shopper.userId}` },
    );
    return { ...payment, latencyMs: order.latencyMs + payment.latencyMs, orderStatus: order.status };
  };
}

/** The product's orders on the shards: how many were paid, their units, and when the last was paid. */
export interface ProductSales {
  orders: number;
  paidOrders: number;
  paidUnits: number;
  /** Epoch ms of the last paid order's commit transaction (Postgres now()), null when none was paid. */
  lastPaidAt: number | null;
}

export interface StockSaleRun {
  productId: string;
  stock: number;
  admitBeyondStock: number;
  /** Tickets admitted by the room (its records). */
  admitted: number;
  /** Orders by answer status, and payments of accepted orders by answer status. */
  orderStatusCounts: Record<string, number>;
  sales: ProductSales;
  /** Units sold beyond the stock: paid units over it (0 is the promise). */
  oversold: number;
  /** WebSocket shoppers still waiting (open socket, never admitted) when the last unit was paid. */
  waitingSockets: number;
  /** Of those, how many were told `sold_out`, and how long after the last unit's payment. */
  toldSoldOut: number;
  soldOutDelayMs: LatencySummary | null;
  /** Shoppers told by a poll, and joins refused `410 room_sold_out` (they came after the moment). */
  pollersToldSoldOut: number;
  joinsRefusedSoldOut: number;
}

export function summarizeStockSale(options: {
  productId: string;
  stock: number;
  admitBeyondStock: number;
  admitted: number;
  shoppers: readonly Shopper[];
  sales: ProductSales;
}): StockSaleRun {
  const { shoppers, sales } = options;
  const orderStatusCounts: Record<string, number> = {};
  for (const s of shoppers) {
    if (s.orderStatus !== null)
      orderStatusCounts[s.orderStatus] = (orderStatusCounts[s.orderStatus] ?? 0) + 1;
  }
  const lastPaidAt = sales.lastPaidAt;
  // Waiting at the moment: a socket open by then, its shopper never admitted (the admitted bought a unit).
  const waiting = shoppers.filter(
    (s) =>
      s.watch === "websocket" &&
      s.noticedAt === null &&
      s.socketOpenedAt !== null &&
      lastPaidAt !== null &&
      s.socketOpenedAt <= lastPaidAt,
  );
  const told = waiting.filter((s) => s.soldOutAt !== null);
  return {
    productId: options.productId,
    stock: options.stock,
    admitBeyondStock: options.admitBeyondStock,
    admitted: options.admitted,
    orderStatusCounts,
    sales,
    oversold: Math.max(0, sales.paidUnits - options.stock),
    waitingSockets: waiting.length,
    toldSoldOut: told.length,
    soldOutDelayMs: summarizeLatencies(told.map((s) => Math.max(0, s.soldOutAt! - lastPaidAt!))),
    pollersToldSoldOut: shoppers.filter((s) => s.watch === "polling" && s.soldOutAt !== null).length,
    joinsRefusedSoldOut: shoppers.filter((s) => s.joinStatus === 410).length,
  };
}

export function checkStockSale(run: StockSaleRun): SaleCheck[] {
  const cap = run.stock + run.admitBeyondStock;
  const slowest = run.soldOutDelayMs?.max ?? null;
  return [
    {
      name: "nobody admitted beyond the stock",
      kind: "audit",
      ok: run.admitted <= cap,
      detail: `${run.admitted} admitted for ${run.stock} units (+${run.admitBeyondStock} margin)`,
    },
    {
      name: "0 oversold",
      kind: "audit",
      ok: run.oversold === 0 && run.sales.paidUnits <= run.stock,
      detail: `${run.sales.paidUnits} units paid of ${run.stock} (${run.sales.paidOrders} paid orders of ${run.sales.orders}); orders answered ${JSON.stringify(run.orderStatusCounts)}`,
    },
    {
      name: "every unit sold",
      kind: "audit",
      ok: run.sales.paidUnits === run.stock,
      detail: `${run.sales.paidUnits} of ${run.stock} units paid: a sale that stopped early would tell sold out to no one`,
    },
    {
      name: `every waiting socket told sold_out within ${SOLD_OUT_PUSH_BOUND_MS} ms of the last unit's payment`,
      // A time bound: what a loaded machine may miss.
      kind: "performance",
      ok:
        run.waitingSockets === 0
          ? null
          : run.toldSoldOut === run.waitingSockets && slowest !== null && slowest <= SOLD_OUT_PUSH_BOUND_MS,
      detail: `${run.toldSoldOut} of ${run.waitingSockets} waiting sockets told; last paid -> told: p50 ${run.soldOutDelayMs?.p50 ?? "?"} ms, p99 ${run.soldOutDelayMs?.p99 ?? "?"} ms, max ${slowest ?? "?"} ms`,
    },
  ];
}
