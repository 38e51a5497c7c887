// One coupon drop on one started Floodgate: a customer token minted for every user, a warm-up coupon and its
// requests (not measured), then the drop's coupon and `--requests` issue requests from `--users` users as fast
// as the intake answers; after the drain, the invariants. On the bench Redis, and with --redis cluster again on
// a Floodgate on a private Redis Cluster (coupon-drop-scenario.ts), each with coupons of its own.

import { waitForApplied } from "../audits/applied-wait.ts";
import { adminRequest } from "../harness/admin-client.ts";
import { startCpuMeter } from "../harness/cpu-meter.ts";
import type { FreshFloodgate } from "../harness/fresh-floodgate.ts";
import { summarizeLatencies } from "../harness/latency-summary.ts";
import { runLoad } from "../harness/load-runner.ts";
import { perSecondSeries } from "../harness/per-second-series.ts";
import { log } from "../harness/progress-line.ts";
import type { CouponDropOptions } from "./coupon-drop-options.ts";
import { checkInvariants, type DropRun } from "./coupon-drop-summary.ts";
import { couponIssueRequest, dropOrder, dropUserId } from "./coupon-requests.ts";

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

/** Fills `into` as the drop goes, so a failure leaves what was measured before it in the result. */
export async function runDrop(
  floodgate: FreshFloodgate,
  options: CouponDropOptions,
  into: DropRun,
): Promise<void> {
  const { system } = floodgate;
  const { adminKey } = system;
  const { baseUrl, shards, identity } = system.target;
  // Setup, not measured: the drop's users, then the warm-up's (indexes after them).
  into.customerTokens = await identity.addShoppers(
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
  into.couponId = couponId;
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
  into.load = {
    requests: load.responses,
    connections: options.connections,
    durationS: (load.finishedAt - load.startedAt) / 1000,
    rate: Math.round(load.responses / ((load.finishedAt - load.startedAt) / 1000)),
    latencyMs: summarizeLatencies(load.latencies),
    perSecond: perSecondSeries(load),
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
  into.invariants = checkInvariants(
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
}
