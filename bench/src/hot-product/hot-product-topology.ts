// hot-product --redis cluster: the rates of the run on one Redis and of the same run on a Redis Cluster (where
// an order is a reservation in the product's slot, then a commit in the user's), as ratios (topology-rates.ts):
// the sale's orders/s and order p99 and the payments' rate, or --max's best orders/s. The two --max searches
// run one after the other, not in pairs as payments --redis cluster's stages.

import { formatCount } from "../harness/progress-line.ts";
import { compareTopologyRate, type RateSide, type TopologyRate } from "../redis-topology/topology-rates.ts";
import type { HotProductMaxResult } from "./hot-product-max-search.ts";
import type { HotProductRun } from "./hot-product-summary.ts";

/** The best passing stage's rate and its p99. */
const maxSide = (max: HotProductMaxResult | null): RateSide => {
  const best = max?.stages.find((s) => s.passed && s.acceptedRate === max.maxAcceptedRate);
  return { rate: max?.maxAcceptedRate ?? null, p99Ms: best?.sale.latencyMs?.p99 ?? null };
};

export function compareHotProducts(single: HotProductRun, cluster: HotProductRun): TopologyRate[] {
  const rates: TopologyRate[] = [];
  const offered = single.sale?.offeredRate ?? cluster.sale?.offeredRate;
  if (offered !== undefined) {
    rates.push(
      // At a fixed offered rate: a ratio below 1 means the cluster did not keep the pace; the p99s say more.
      compareTopologyRate(
        `sale (offered ${formatCount(offered)}/s)`,
        "orders/s",
        { rate: single.sale?.acceptedRate ?? null, p99Ms: single.sale?.latencyMs?.p99 ?? null },
        { rate: cluster.sale?.acceptedRate ?? null, p99Ms: cluster.sale?.latencyMs?.p99 ?? null },
      ),
      compareTopologyRate(
        "payments (as fast as the intake answers)",
        "payments/s",
        { rate: single.payment?.acceptedRate ?? null, p99Ms: single.payment?.latencyMs?.p99 ?? null },
        { rate: cluster.payment?.acceptedRate ?? null, p99Ms: cluster.payment?.latencyMs?.p99 ?? null },
      ),
    );
  }
  if (single.max !== null || cluster.max !== null) {
    rates.push(
      compareTopologyRate(
        "--max (the searches one after the other)",
        "orders/s",
        maxSide(single.max),
        maxSide(cluster.max),
      ),
    );
  }
  return rates;
}
