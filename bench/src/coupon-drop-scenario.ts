// `./floodgate bench coupon-drop`: a first-come-first-served drop. Floodgate started fresh with an admin key,
// one coupon created, then `--requests` issue requests from `--users` users as fast as the intake answers;
// after the drain, the invariants: exactly `--quantity` issued, to as many users, one row each on the shards.
import { randomBytes } from "node:crypto";
import path from "node:path";
import { dropDatabases } from "@floodgate/db";
import { waitForApplied } from "./applied-wait.ts";
import { benchEnvironment } from "./bench-environment.ts";
import { REPO_ROOT } from "./child-service.ts";
import {
  COUPON_DROP_OPTION_SPECS,
  type CouponDropOptions,
  toCouponDropOptions,
} from "./coupon-drop-options.ts";
import { type CouponDropResult, checkInvariants, summarizeCouponDrop } from "./coupon-drop-summary.ts";
import { couponIssueRequest, dropOrder } from "./coupon-requests.ts";
import { FloodgateSystem } from "./floodgate-system.ts";
import { registerCleanup } from "./interrupt-cleanup.ts";
import { summarizeLatencies } from "./latency-summary.ts";
import { runLoad } from "./load-runner.ts";
import { log } from "./progress-line.ts";
import { deleteKeysWithPrefix } from "./redis-cleanup.ts";
import { commitInfo, machineInfo } from "./result-file.ts";
import type { Scenario, ScenarioContext, ScenarioOutcome } from "./scenario.ts";
import { serviceSettings } from "./service-settings.ts";

export const couponDropScenario: Scenario = {
  name: "coupon-drop",
  description:
    "first-come-first-served coupons: 100,000 requests from 50,000 users (each twice) for 1,000 coupons, as fast as possible",
  options: COUPON_DROP_OPTION_SPECS,
  run: (values, context) => runCouponDrop(toCouponDropOptions(values), context),
};

async function adminRequest(baseUrl: string, key: string, method: string, url: string, body?: unknown) {
  const response = await fetch(`${baseUrl}${url}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

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
  const environment = benchEnvironment();
  const redisPrefix = `fgbench:${context.stamp}:`;
  const cleanRedis = () => deleteKeysWithPrefix(environment.redisUrl, redisPrefix).catch(() => 0);
  const unregisterCleanup = registerCleanup(cleanRedis);
  const adminKey = randomBytes(24).toString("base64url");
  const system = new FloodgateSystem({
    databaseUrl: environment.floodgateDatabaseUrl,
    redisUrl: environment.redisUrl,
    redisPrefix,
    logFile: context.logFile,
    adminApiKey: adminKey,
  });
  const result: CouponDropResult = {
    scenario: "coupon-drop",
    startedAt: context.startedAt.toISOString(),
    finishedAt: null,
    ...commitInfo(),
    machine: machineInfo(),
    services: null,
    settings: { ...options, systemEnvironment: null, logFile: path.relative(REPO_ROOT, context.logFile) },
    loadGenerator: "autocannon 8, one thread in the bench process, unrated (as fast as the intake answers)",
    couponId: null,
    load: null,
    invariants: null,
    error: null,
  };
  try {
    log(`dropping leftover bench databases, starting Floodgate (log: ${context.logFile})`);
    await dropDatabases([environment.floodgateDatabaseUrl, ...system.shardUrls]);
    await system.start(options.workers);
    result.settings.systemEnvironment = system.environment(options.workers, true);
    result.services = await serviceSettings(system.shardUrls[0]!, environment.redisUrl);
    const { baseUrl, shards } = system.target;

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
        }),
      });
    }

    const couponId = await createCoupon(baseUrl, adminKey, "bench drop", options.quantity);
    result.couponId = couponId;
    const accepted = new Map<string, string>();
    const attempts = new Map<string, number>();
    const since = new Date();
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
      }),
    });
    result.load = {
      requests: load.responses,
      connections: options.connections,
      durationS: (load.finishedAt - load.startedAt) / 1000,
      rate: Math.round(load.responses / ((load.finishedAt - load.startedAt) / 1000)),
      latencyMs: summarizeLatencies(load.latencies),
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
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error);
  } finally {
    await system.close();
    unregisterCleanup();
    const deleted = await cleanRedis();
    log(`removed ${deleted} Redis keys of this run`);
  }
  result.finishedAt = new Date().toISOString();
  return {
    result: { ...result },
    summary: summarizeCouponDrop(result),
    ...(result.error ? { error: result.error } : {}),
  };
}
