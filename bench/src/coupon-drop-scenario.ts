// `./floodgate bench coupon-drop`: a first-come-first-served drop. Floodgate started fresh with an admin key,
// a customer token minted for every user, one coupon created, then `--requests` issue requests from `--users`
// users (each with its own token) as fast as the intake answers;
// after the drain, the invariants: exactly `--quantity` issued, to as many users, one row each on the shards.
import { adminRequest } from "./admin-client.ts";
import { waitForApplied } from "./applied-wait.ts";
import {
  COUPON_DROP_OPTION_SPECS,
  type CouponDropOptions,
  toCouponDropOptions,
} from "./coupon-drop-options.ts";
import { type CouponDropResult, checkInvariants, summarizeCouponDrop } from "./coupon-drop-summary.ts";
import { couponIssueRequest, dropOrder, dropUserId } from "./coupon-requests.ts";
import { startCpuMeter } from "./cpu-meter.ts";
import { freshFloodgate } from "./fresh-floodgate.ts";
import { summarizeLatencies } from "./latency-summary.ts";
import { describeLoadGenerator, runLoad } from "./load-runner.ts";
import { log } from "./progress-line.ts";
import type { Scenario, ScenarioContext, ScenarioOutcome } from "./scenario.ts";
import { finishRun, resultHeader } from "./scenario-run.ts";

export const couponDropScenario: Scenario = {
  name: "coupon-drop",
  description:
    "first-come-first-served coupons: 100,000 requests from 50,000 users (each twice) for 1,000 coupons, as fast as possible",
  options: COUPON_DROP_OPTION_SPECS,
  run: (values, context) => runCouponDrop(toCouponDropOptions(values), context),
};

const createCoupon = async (baseUrl: string, key: string, name: string, quantity: number) =>
  String(
    (
      await adminRequest(baseUrl, key, "POST", "/v1/coupons", {
        name,
        quantity,
        discount: { type: "percent", value: 10 },
      })
    ).id,
  );

async function runCouponDrop(options: CouponDropOptions, context: ScenarioContext): Promise<ScenarioOutcome> {
  const floodgate = freshFloodgate(context);
  const { system } = floodgate;
  const { adminKey } = system;
  const result: CouponDropResult = {
    ...resultHeader("coupon-drop", context, options, describeLoadGenerator(null)),
    couponId: null,
    customerTokens: null,
    load: null,
    invariants: null,
    error: null,
  };
  return finishRun(
    result,
    async () => {
      await floodgate.start(options.workers, result);
      const { baseUrl, shards, identity } = system.target;
      // Setup, not measured: the drop's users, then the warm-up's (indexes after them).
      result.customerTokens = await identity.addShoppers(
        Array.from({ length: options.users + options.warmup }, (_, i) => dropUserId(i)),
      );

      if (options.warmup > 0) {
        const warmupCoupon = await createCoupon(baseUrl, adminKey, "bench warm-up", options.warmup);
        await runLoad({
          label: "warm-up (not measured)",
          url: baseUrl,
          connections: options.connections,
          rate: null,
          amount: options.warmup,
          request: couponIssueRequest({
            couponId: warmupCoupon,
            order: Uint32Array.from({ length: options.warmup }, (_, i) => options.users + i),
            accepted: new Map(),
            attempts: new Map(),
            identity,
          }),
        });
      }

      const couponId = await createCoupon(baseUrl, adminKey, "bench drop", options.quantity);
      result.couponId = couponId;
      const accepted = new Map<string, string>();
      const attempts = new Map<string, number>();
      const since = new Date();
      const meter = startCpuMeter();
      const load = await runLoad({
        label: `coupon drop, ${options.quantity} coupons`,
        url: baseUrl,
        connections: options.connections,
        rate: null,
        amount: options.requests,
        request: couponIssueRequest({
          couponId,
          order: dropOrder(options.requests, options.users),
          accepted,
          attempts,
          identity,
        }),
      });
      result.load = {
        requests: load.responses,
        connections: options.connections,
        durationS: (load.finishedAt - load.startedAt) / 1000,
        rate: Math.round(load.responses / ((load.finishedAt - load.startedAt) / 1000)),
        latencyMs: summarizeLatencies(load.latencies),
        cpu: meter.stop(),
        statusCounts: load.statusCounts,
        errors: load.errors,
        timeouts: load.timeouts,
      };

      log("waiting for the workers to record every issued coupon");
      const wait = await waitForApplied({
        label: "issued coupons recorded",
        shards,
        table: "issued_coupons",
        since,
        target: accepted.size,
        timeoutMs: 120_000,
      });
      const rows = await shards.issuedCoupons(couponId);
      const coupon = await adminRequest(baseUrl, adminKey, "GET", `/v1/coupons/${couponId}`);
      const rowIds = new Set(rows.map((row) => row.id));
      const winners = new Set(accepted.values());
      result.invariants = checkInvariants(
        {
          quantity: options.quantity,
          accepted: load.statusCounts["202"] ?? 0,
          acceptedUsers: winners.size,
          conflicts: load.statusCounts["409"] ?? 0,
          soldOut: load.statusCounts["410"] ?? 0,
          redisIssued: typeof coupon.issued === "number" ? coupon.issued : null,
          rows: rows.length,
          rowUsers: new Set(rows.map((row) => row.userId)).size,
          missingRows: [...accepted.keys()].filter((id) => !rowIds.has(id)).length,
          unconfirmedRows: rows.filter((row) => !accepted.has(row.id)).length,
          drained: wait.complete,
          drainWaitMs: wait.waitedMs,
        },
        {
          responses: load.responses,
          winnerAttempts: [...winners].reduce((sum, user) => sum + (attempts.get(user) ?? 0), 0),
        },
      );
      if (!result.invariants.ok) result.error = "the coupon invariants do not hold (see invariants)";
    },
    () => floodgate.close(),
    summarizeCouponDrop,
  );
}
