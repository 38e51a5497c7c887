// One sale of a hot product: a fresh product with `stock` units, one-unit orders at `rate`/s over
// `connections` until it is gone, one more order that must be refused, then the wait for the workers to record
// every accepted order and the stock invariant on the drained queue. The fixed run and each --max stage.

import { waitForApplied } from "../audits/applied-wait.ts";
import type { ShardSet } from "../audits/shard-set.ts";
import { adminRequest } from "../harness/admin-client.ts";
import type { BenchIdentity } from "../harness/bench-identity.ts";
import { type CpuUsage, startCpuMeter } from "../harness/cpu-meter.ts";
import { type LatencySummary, summarizeLatencies } from "../harness/latency-summary.ts";
import { runLoad, steadyRate } from "../harness/load-runner.ts";
import { jsonHeaders } from "../harness/payment-requests.ts";
import { type PerSecondSeries, perSecondSeries } from "../harness/per-second-series.ts";
import { type AcceptedOrder, orderRequest } from "./order-requests.ts";
import type { StockAuditor, StockCheck } from "./product-stock-check.ts";

/** Price of one unit, in minor units: the funding (payment-requests.ts) covers 1,000 of them per user. */
export const UNIT_PRICE = 10_000;

/** The buyer of the order sent once a sale is over (it must meet an empty shelf). */
export const LATE_BUYER = "hot-product-late-buyer";

export interface SaleTarget {
  baseUrl: string;
  adminKey: string;
  /** The buyers' customer tokens (LATE_BUYER's included). */
  identity: BenchIdentity;
  shards: ShardSet;
  auditor: StockAuditor;
}

export interface SaleResult {
  productId: string;
  stock: number;
  offeredRate: number;
  connections: number;
  slices: number;
  /** Orders sent: the stock plus one per connection, so the last round meets an empty shelf. */
  requests: number;
  responses: number;
  accepted: number;
  /** Distinct order ids among the 202s (two requests given one order would show here). */
  uniqueOrderIds: number;
  outOfStock: number;
  /** Responses other than 202 and 409, plus socket errors (timeouts included). */
  failures: number;
  errors: number;
  timeouts: number;
  statusCounts: Record<string, number>;
  /** Seconds from the start to the last response (mean over the slices). */
  durationS: number;
  /** Answers (202 and 409) per second of `durationS`. */
  responseRate: number;
  /** 202s in each second of the sale. */
  acceptedPerSecond: number[];
  /** Orders/s: the accepted rate over the sale's whole seconds (steadyRate); for a sale shorter than 3 s,
   * accepted / durationS. */
  acceptedRate: number;
  latencyMs: LatencySummary | null;
  /** 202s, answers and p50/p99 second by second, for the result's chart; absent from older results. */
  perSecond?: PerSecondSeries;
  /** Where the cpu went while the orders ran (null where /proc is not there). */
  cpu: CpuUsage | null;
  /** The order sent once the load is over: its status and problem code (409 out_of_stock expected). */
  nextOrder: { status: number; code: string | null } | null;
  ordersRecorded: { rows: number; complete: boolean; waitedMs: number };
  stockAfterSale: StockCheck | null;
}

export async function createProduct(target: SaleTarget, name: string, stock: number): Promise<string> {
  const product = await adminRequest(target.baseUrl, target.adminKey, "POST", "/v1/products", {
    name,
    price: UNIT_PRICE,
    stock,
  });
  return String(product.id);
}

export const perSecond = (count: number, seconds: number) =>
  seconds > 0 ? Math.round((count / seconds) * 10) / 10 : 0;

async function placeOneOrder(target: SaleTarget, productId: string, userId: string) {
  const response = await fetch(`${target.baseUrl}/v1/orders`, {
    method: "POST",
    headers: jsonHeaders(target.identity.shopperHeaders(userId)),
    body: JSON.stringify({ userId, items: [{ productId, quantity: 1 }] }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json().catch(() => ({}))) as { code?: unknown };
  return { status: response.status, code: typeof body.code === "string" ? body.code : null };
}

export async function runSale(
  target: SaleTarget,
  options: {
    label: string;
    stock: number;
    rate: number;
    connections: number;
    slices: number;
    users: number;
    keyPrefix: string;
  },
): Promise<{ sale: SaleResult; orders: AcceptedOrder[] }> {
  const productId = await createProduct(target, options.label, options.stock);
  const orders: AcceptedOrder[] = [];
  const requests = options.stock + options.connections;
  const since = new Date();
  const meter = startCpuMeter();
  const load = await runLoad({
    label: options.label,
    url: target.baseUrl,
    connections: options.connections,
    rate: options.rate,
    slices: options.slices,
    amount: requests,
    request: orderRequest({
      productId,
      users: options.users,
      keyPrefix: options.keyPrefix,
      accepted: orders,
      identity: target.identity,
    }),
  });
  const cpu = meter.stop();
  const accepted = load.statusCounts["202"] ?? 0;
  const outOfStock = load.statusCounts["409"] ?? 0;
  const nextOrder = await placeOneOrder(target, productId, LATE_BUYER);
  const wait = await waitForApplied({
    label: `${options.label}: orders recorded`,
    shards: target.shards,
    table: "orders",
    since,
    target: accepted,
    timeoutMs: Math.max(120_000, accepted * 10),
  });
  const sale: SaleResult = {
    productId,
    stock: options.stock,
    offeredRate: options.rate,
    connections: options.connections,
    slices: load.slices,
    requests,
    responses: load.responses,
    accepted,
    uniqueOrderIds: new Set(orders.map((order) => order.id)).size,
    outOfStock,
    failures: load.responses - accepted - outOfStock + load.errors,
    errors: load.errors,
    timeouts: load.timeouts,
    statusCounts: load.statusCounts,
    durationS: load.activeS,
    responseRate: perSecond(load.responses, load.activeS),
    acceptedPerSecond: load.okPerSecond,
    acceptedRate: steadyRate(load.okPerSecond) ?? perSecond(accepted, load.activeS),
    latencyMs: summarizeLatencies(load.latencies),
    perSecond: perSecondSeries(load),
    cpu,
    nextOrder,
    ordersRecorded: { rows: wait.applied, complete: wait.complete, waitedMs: wait.waitedMs },
    stockAfterSale: await target.auditor.check(target, productId),
  };
  return { sale, orders };
}
