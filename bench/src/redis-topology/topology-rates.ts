// coupon-drop and hot-product --redis cluster: a rate measured on one Redis, then again on a fresh Floodgate on
// a Redis Cluster of 3 masters in the same run, and their ratio. On the cluster a coupon issue and an order take
// two steps (a reservation in the coupon's or product's slot beside the user's admission, then a commit in the
// user's slot) where one Redis takes one script. Both systems ran on this machine's cpus, the cluster's three
// Redis processes where one Redis had one: the ratio is what this machine shows, not how a cluster scales.
import { formatCount } from "../harness/progress-line.ts";
import { ratio3 } from "../payments/stage-pairs.ts";

export interface RateSide {
  rate: number | null;
  p99Ms: number | null;
}

export interface TopologyRate {
  /** What was measured: "drop", "sale", "payments", "--max". */
  phase: string;
  /** What the rate counts, e.g. "orders/s". */
  unit: string;
  single: RateSide;
  cluster: RateSide;
  /** cluster.rate / single.rate (3 decimals); null when either is missing or 0. */
  ratio: number | null;
}

export const compareTopologyRate = (
  phase: string,
  unit: string,
  single: RateSide,
  cluster: RateSide,
): TopologyRate => ({ phase, unit, single, cluster, ratio: ratio3(cluster.rate, single.rate) });

// p99 as the latency lines print it (toFixed), so the two figures of one run never differ in the last digit.
const sideText = (side: RateSide, unit: string) =>
  `${side.rate === null ? "n/a" : `${formatCount(side.rate)} ${unit}`}${side.p99Ms === null ? "" : ` (p99 ${side.p99Ms.toFixed(1)} ms)`}`;

export function topologyRateLines(rates: readonly TopologyRate[], cpuCount: number): string[] {
  if (rates.length === 0) return [];
  return [
    ...rates.map(
      (r) =>
        `redis topology, ${r.phase}: one Redis ${sideText(r.single, r.unit)}, Redis Cluster ${sideText(r.cluster, r.unit)}; ${r.ratio === null ? "no ratio (a rate is missing)" : `cluster / one Redis ${r.ratio} (${(r.ratio * 100).toFixed(1)} %)`}`,
    ),
    `  one after the other, both on these ${cpuCount} cpus (the cluster's 3 Redis processes where one Redis had one): the ratio is what this machine shows, not how a cluster scales`,
  ];
}
