// Pays every accepted order of a sale as fast as the intake answers (one payment each, the amount its 202
// named), waits for the workers to apply them, and audits: each payment applied once, each order paid once.
import type { DeliveryAudit } from "../audits/delivery-audit.ts";
import { awaitDelivery } from "../audits/delivery-wait.ts";
import { auditSettlement, type OrderSettlementAudit } from "../audits/order-settlement-audit.ts";
import { type LatencySummary, summarizeLatencies } from "../harness/latency-summary.ts";
import { runLoad } from "../harness/load-runner.ts";
import { perSecond, type SaleTarget } from "./hot-product-sale.ts";
import { type AcceptedOrder, orderPaymentRequest } from "./order-requests.ts";
import type { StockCheck } from "./product-stock-check.ts";

export interface OrderPaymentResult {
  orders: number;
  connections: number;
  responses: number;
  accepted: number;
  non2xx: number;
  errors: number;
  statusCounts: Record<string, number>;
  durationS: number;
  /** Accepted payments per second of `durationS`. */
  acceptedRate: number;
  latencyMs: LatencySummary | null;
  /** False when the wait for the workers hit its bound before every accepted payment was applied. */
  allApplied: boolean;
  /** The payments: each accepted id in exactly one row, succeeded or failed. */
  delivery: DeliveryAudit;
  /** The orders: each paid, by exactly one succeeded payment, the one the bench sent for it. */
  settlement: OrderSettlementAudit;
  /** The product's stock invariant once the payments are applied. */
  stockAfterPayment: StockCheck;
}

export async function payOrders(options: {
  target: SaleTarget;
  productId: string;
  orders: readonly AcceptedOrder[];
  connections: number;
}): Promise<OrderPaymentResult> {
  const { orders, target } = options;
  const payments = new Map<string, string>();
  const since = new Date();
  const load =
    orders.length === 0
      ? null
      : await runLoad({
          label: `paying ${orders.length} orders`,
          url: target.baseUrl,
          connections: options.connections,
          rate: null,
          amount: orders.length,
          request: orderPaymentRequest({ orders, payments, identity: target.identity }),
        });
  const { audit, allApplied } = await awaitDelivery({
    label: "payments applied",
    shards: target.shards,
    since,
    acceptedIds: [...payments.keys()],
    timeoutMs: Math.max(120_000, orders.length * 10),
  });
  const settlement = auditSettlement(
    orders.map((order) => order.id),
    payments,
    await target.shards.orderSettlements(options.productId),
  );
  const durationS = load?.activeS ?? 0;
  return {
    orders: orders.length,
    connections: options.connections,
    responses: load?.responses ?? 0,
    accepted: load?.ok ?? 0,
    non2xx: load?.non2xx ?? 0,
    errors: load?.errors ?? 0,
    statusCounts: load?.statusCounts ?? {},
    durationS,
    acceptedRate: perSecond(load?.ok ?? 0, durationS),
    latencyMs: summarizeLatencies(load?.latencies ?? []),
    allApplied,
    delivery: audit,
    settlement,
    stockAfterPayment: await target.auditor.check(target, options.productId),
  };
}
