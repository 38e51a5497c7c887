// `./floodgate bench hot-product` (issue 4): Floodgate started fresh with an admin key, the buyers funded (the
// shop's server key) and given customer tokens, a warm-up sale, then one product with `--stock` units ordered one unit at a time at `--rate`/s over
// `--connections` until it is gone, and every accepted order paid. Checked after each drained phase: exactly the
// stock sold, the rest and the next order refused with 409, the stock invariant, each order paid once.
// `--max` replaces the sale and the payments with the rate search of hot-product-max-search.ts.
import { freshFloodgate } from "./fresh-floodgate.ts";
import { checkPayment, checkSale, collectChecks } from "./hot-product-invariants.ts";
import { searchHotProductMax } from "./hot-product-max-search.ts";
import {
  HOT_PRODUCT_OPTION_SPECS,
  type HotProductOptions,
  toHotProductOptions,
} from "./hot-product-options.ts";
import { LATE_BUYER, runSale, type SaleTarget } from "./hot-product-sale.ts";
import { type HotProductResult, summarizeHotProduct } from "./hot-product-summary.ts";
import { describeLoadGenerator } from "./load-runner.ts";
import { payOrders } from "./order-payment-phase.ts";
import { benchUserId } from "./payment-requests.ts";
import { StockAuditor } from "./product-stock-check.ts";
import { log } from "./progress-line.ts";
import type { Scenario, ScenarioContext, ScenarioOutcome } from "./scenario.ts";
import { finishRun, resultHeader } from "./scenario-run.ts";
import { fundWallets } from "./wallet-funding.ts";

export const hotProductScenario: Scenario = {
  name: "hot-product",
  description:
    "one product, 50,000 in stock, ordered one unit at a time at 4,000 orders/s over 500 connections until it is gone, then every order paid; --max",
  options: HOT_PRODUCT_OPTION_SPECS,
  run: (values, context) => runHotProduct(toHotProductOptions(values), context),
};

/** An hour, longer than any run: unpaid orders (the warm-up's, --max stages') must not expire mid-run. */
const ORDER_TTL_SECONDS = "3600";
/**
 * The per-user cap at its largest: order i comes from user i mod --users, a load generator's round robin, so a
 * small --users would hold many unpaid units each and be refused. The script still checks the cap (same cost).
 */
const MAX_UNITS_PER_USER = "1000000";

async function runHotProduct(options: HotProductOptions, context: ScenarioContext): Promise<ScenarioOutcome> {
  const floodgate = freshFloodgate(context, { extraEnvironment: { ORDER_TTL_SECONDS, MAX_UNITS_PER_USER } });
  const { system } = floodgate;
  const auditor = new StockAuditor(system.config.databaseUrl, system.shardUrls);
  const result: HotProductResult = {
    ...resultHeader("hot-product", context, options, describeLoadGenerator(options.slices)),
    funding: null,
    customerTokens: null,
    sale: null,
    payment: null,
    invariants: null,
    max: null,
    error: null,
  };
  const keyPrefix = `bench-${context.stamp}`;
  return finishRun(
    result,
    async () => {
      await floodgate.start(options.workers, result);
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
        result.funding = await fundWallets({
          baseUrl: target.baseUrl,
          shards: system.shards,
          users: options.users,
          connections: options.connections,
          identity: target.identity,
        });
      }
      // Setup, not measured (--max orders too, with no funding: its stages sell without payments).
      result.customerTokens = await target.identity.addShoppers([
        ...Array.from({ length: options.users }, (_, i) => benchUserId(i)),
        LATE_BUYER,
      ]);
      if (options.warmup > 0) {
        // Not measured: JIT, pool connections and the first BullMQ jobs are not the steady state.
        const warmup = (await sale("warm-up (not measured)", "warmup", options.warmup)).sale;
        log(`warm-up: ${warmup.accepted} orders, p99 ${warmup.latencyMs?.p99 ?? "n/a"} ms`);
      }
      if (options.max) {
        result.max = await searchHotProductMax(target, {
          stageDurationS: options.stageDuration,
          connections: options.connections,
          slices: options.slices,
          users: options.users,
          keyPrefix: `${keyPrefix}-max`,
        });
        if (result.max.stages.some((stage) => !stage.invariants.ok)) {
          result.error = "the invariants of a --max stage do not hold (see max.stages[].invariants)";
        }
      } else {
        const { sale: measured, orders } = await sale(`sale @ ${options.rate}/s`, "sale", options.stock);
        result.sale = measured;
        result.payment = await payOrders({
          target,
          productId: measured.productId,
          orders,
          connections: options.connections,
        });
        result.invariants = collectChecks([
          ...checkSale(measured),
          ...checkPayment(measured, result.payment),
        ]);
        if (!result.invariants.ok) result.error = "the hot-product invariants do not hold (see invariants)";
      }
    },
    async () => {
      await auditor.close();
      await floodgate.close();
    },
    summarizeHotProduct,
  );
}
