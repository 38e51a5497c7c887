// `./floodgate bench coupon-drop`: a first-come-first-served drop. Floodgate started fresh with an admin key,
// then the drop of coupon-drop-run.ts: a customer token for every user, one coupon, `--requests` issue requests
// from `--users` users (each with its own token) as fast as the intake answers; after the drain, the
// invariants: exactly `--quantity` issued, to as many users, one row each on the shards. With --redis cluster,
// the same drop again on a fresh Floodgate on a private Redis Cluster (cluster-rerun.ts), where an issue takes
// two steps, and the ratio of the two response rates.

import { freshFloodgate } from "../harness/fresh-floodgate.ts";
import { describeLoadGenerator } from "../harness/load-runner.ts";
import { resultHeader } from "../harness/result-head.ts";
import { finishRun } from "../harness/scenario-run.ts";
import { closeBoth, runAgainOnCluster } from "../redis-topology/cluster-rerun.ts";
import { floodgateOnCluster } from "../redis-topology/floodgate-on-cluster.ts";
import type { Scenario, ScenarioContext, ScenarioOutcome } from "../scenario.ts";
import {
  COUPON_DROP_OPTION_SPECS,
  type CouponDropOptions,
  toCouponDropOptions,
} from "./coupon-drop-options.ts";
import { runDrop } from "./coupon-drop-run.ts";
import {
  type CouponDropResult,
  compareDrops,
  dropError,
  emptyDropRun,
  summarizeCouponDrop,
} from "./coupon-drop-summary.ts";

export const couponDropScenario: Scenario = {
  name: "coupon-drop",
  description:
    "first-come-first-served coupons: 100,000 requests from 50,000 users (each twice) for 1,000 coupons, as fast as possible; --redis cluster",
  options: COUPON_DROP_OPTION_SPECS,
  run: (values, context) => runCouponDrop(toCouponDropOptions(values), context),
};

async function runCouponDrop(options: CouponDropOptions, context: ScenarioContext): Promise<ScenarioOutcome> {
  const floodgate = freshFloodgate(context);
  const onCluster = floodgateOnCluster(context);
  const result: CouponDropResult = {
    ...resultHeader("coupon-drop", context, options, describeLoadGenerator(null)),
    ...emptyDropRun(),
    floodgateCluster: options.redis === "cluster" ? emptyDropRun() : null,
    redisCluster: null,
    redisTopology: null,
    error: null,
  };
  return finishRun(
    result,
    async () => {
      await floodgate.start(options.workers, result);
      await runDrop(floodgate, options, result);
      const errors = [dropError(result, "invariants")];
      const cluster = result.floodgateCluster;
      if (cluster !== null) {
        await runAgainOnCluster(floodgate, onCluster, {
          workers: options.workers,
          result,
          measure: (onIt) => runDrop(onIt, options, cluster),
        });
        result.redisTopology = compareDrops(result, cluster);
        errors.push(dropError(cluster, "floodgateCluster.invariants"));
      }
      result.error = errors.filter((error) => error !== null).join("; ") || null;
    },
    () => closeBoth(floodgate, onCluster),
    summarizeCouponDrop,
  );
}
