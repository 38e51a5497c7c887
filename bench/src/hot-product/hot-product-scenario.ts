// `./floodgate bench hot-product` (issue 4): Floodgate started fresh with an admin key, then the run of
// hot-product-run.ts: the buyers funded and given customer tokens, a warm-up sale, then one product with
// `--stock` units ordered one unit at a time at `--rate`/s over `--connections` until it is gone, and every
// accepted order paid. Checked after each drained phase: exactly the stock sold, the rest and the next order
// refused with 409, the stock invariant, each order paid once. `--max` replaces the sale and the payments with
// the rate search of hot-product-max-search.ts. With --redis cluster, the same run again on a fresh Floodgate on
// a private Redis Cluster (cluster-rerun.ts), where an order takes two steps, and the ratios of the rates.

import { freshFloodgate } from "../harness/fresh-floodgate.ts";
import { describeLoadGenerator } from "../harness/load-runner.ts";
import { resultHeader } from "../harness/result-head.ts";
import { finishRun } from "../harness/scenario-run.ts";
import { closeBoth, runAgainOnCluster } from "../redis-topology/cluster-rerun.ts";
import { floodgateOnCluster } from "../redis-topology/floodgate-on-cluster.ts";
import type { Scenario, ScenarioContext, ScenarioOutcome } from "../scenario.ts";
import {
  HOT_PRODUCT_OPTION_SPECS,
  type HotProductOptions,
  toHotProductOptions,
} from "./hot-product-options.ts";
import { hotProductError, runHotProduct } from "./hot-product-run.ts";
import { emptyHotProductRun, type HotProductResult, summarizeHotProduct } from "./hot-product-summary.ts";
import { compareHotProducts } from "./hot-product-topology.ts";

export const hotProductScenario: Scenario = {
  name: "hot-product",
  description:
    "one product, 50,000 in stock, ordered one unit at a time at 4,000 orders/s over 500 connections until it is gone, then every order paid; --max; --redis cluster",
  options: HOT_PRODUCT_OPTION_SPECS,
  run: (values, context) => runScenario(toHotProductOptions(values), context),
};

/** An hour, longer than any run: unpaid orders (the warm-up's, --max stages') must not expire mid-run. */
const ORDER_TTL_SECONDS = "3600";
/**
 * The per-user cap at its largest: order i comes from user i mod --users, a load generator's round robin, so a
 * small --users would hold many unpaid units each and be refused. The script still checks the cap (same cost).
 */
const MAX_UNITS_PER_USER = "1000000";

async function runScenario(options: HotProductOptions, context: ScenarioContext): Promise<ScenarioOutcome> {
  const extraEnvironment = { ORDER_TTL_SECONDS, MAX_UNITS_PER_USER };
  const floodgate = freshFloodgate(context, { extraEnvironment });
  const onCluster = floodgateOnCluster(context, { extraEnvironment });
  const result: HotProductResult = {
    ...resultHeader("hot-product", context, options, describeLoadGenerator(options.slices)),
    ...emptyHotProductRun(),
    floodgateCluster: options.redis === "cluster" ? emptyHotProductRun() : null,
    redisCluster: null,
    redisTopology: null,
    error: null,
  };
  const keyPrefix = `bench-${context.stamp}`;
  return finishRun(
    result,
    async () => {
      await floodgate.start(options.workers, result);
      await runHotProduct(floodgate, options, keyPrefix, result);
      const errors = [hotProductError(result, "")];
      const cluster = result.floodgateCluster;
      if (cluster !== null) {
        await runAgainOnCluster(floodgate, onCluster, {
          workers: options.workers,
          result,
          measure: (onIt) => runHotProduct(onIt, options, `${keyPrefix}-cluster`, cluster),
        });
        result.redisTopology = compareHotProducts(result, cluster);
        errors.push(hotProductError(cluster, "floodgateCluster."));
      }
      result.error = errors.filter((error) => error !== null).join("; ") || null;
    },
    () => closeBoth(floodgate, onCluster),
    summarizeHotProduct,
  );
}
