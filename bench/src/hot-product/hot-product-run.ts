// One hot-product run on one started Floodgate: the buyers funded (not with --max) and given customer tokens, a
// warm-up sale, then either the sale of `--stock` units at `--rate`/s and every accepted order paid, with the
// invariants, or the --max search. On the bench Redis, and with --redis cluster again on a Floodgate on a
// private Redis Cluster (hot-product-scenario.ts), each with products of its own.
import type { FreshFloodgate } from "../harness/fresh-floodgate.ts";
import { benchUserId } from "../harness/payment-requests.ts";
import { log } from "../harness/progress-line.ts";
import { fundWallets } from "../harness/wallet-funding.ts";
import { checkPayment, checkSale, collectChecks } from "./hot-product-invariants.ts";
import { searchHotProductMax } from "./hot-product-max-search.ts";
import type { HotProductOptions } from "./hot-product-options.ts";
import { LATE_BUYER, runSale, type SaleTarget } from "./hot-product-sale.ts";
import type { HotProductRun } from "./hot-product-summary.ts";
import { payOrders } from "./order-payment-phase.ts";
import { StockAuditor } from "./product-stock-check.ts";

/** Fills `into` as the run goes, so a failure leaves what was measured before it in the result. */
export async function runHotProduct(
  floodgate: FreshFloodgate,
  options: HotProductOptions,
  keyPrefix: string,
  into: HotProductRun,
): Promise<void> {
  const { system } = floodgate;
  const auditor = new StockAuditor(system.config.databaseUrl, system.shardUrls);
  try {
    const target: SaleTarget = {
      baseUrl: system.baseUrl,
      adminKey: system.adminKey,
      identity: system.identity,
      shards: system.shards,
      auditor,
    };
    const sale = (label: string, name: string, stock: number) =>
      runSale(target, {
        label,
        stock,
        rate: options.rate,
        connections: options.connections,
        slices: options.slices,
        users: options.users,
        keyPrefix: `${keyPrefix}-${name}`,
      });
    if (!options.max) {
      into.funding = await fundWallets({
        baseUrl: target.baseUrl,
        shards: system.shards,
        users: options.users,
        connections: options.connections,
        identity: target.identity,
      });
    }
    // Setup, not measured (--max orders too, with no funding: its stages sell without payments).
    into.customerTokens = await target.identity.addShoppers([
      ...Array.from({ length: options.users }, (_, i) => benchUserId(i)),
      LATE_BUYER,
    ]);
    if (options.warmup > 0) {
      // Not measured: JIT, pool connections and the first BullMQ jobs are not the steady state.
      const warmup = (await sale("warm-up (not measured)", "warmup", options.warmup)).sale;
      log(`warm-up: ${warmup.accepted} orders, p99 ${warmup.latencyMs?.p99 ?? "n/a"} ms`);
    }
    if (options.max) {
      into.max = await searchHotProductMax(target, {
        stageDurationS: options.stageDuration,
        connections: options.connections,
        slices: options.slices,
        users: options.users,
        keyPrefix: `${keyPrefix}-max`,
      });
    } else {
      const { sale: measured, orders } = await sale(`sale @ ${options.rate}/s`, "sale", options.stock);
      into.sale = measured;
      into.payment = await payOrders({
        target,
        productId: measured.productId,
        orders,
        connections: options.connections,
      });
      into.invariants = collectChecks([...checkSale(measured), ...checkPayment(measured, into.payment)]);
    }
  } finally {
    await auditor.close();
  }
}

/** Names the error when a run's invariants do not hold: `where` is the result field holding the run. */
export function hotProductError(run: HotProductRun, where: string): string | null {
  if (run.max?.stages.some((stage) => !stage.invariants.ok)) {
    return `the invariants of a --max stage do not hold (see ${where}max.stages[].invariants)`;
  }
  if (run.invariants !== null && !run.invariants.ok) {
    return `the hot-product invariants do not hold (see ${where}invariants)`;
  }
  return null;
}
