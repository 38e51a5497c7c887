import { describe, expect, it } from "vitest";
import {
  type CouponDropResult,
  checkInvariants,
  compareDrops,
  type DropRun,
  summarizeCouponDrop,
} from "../src/coupon-drop/coupon-drop-summary.ts";
import { TEST_REDIS_CLUSTER, testResultHeader } from "./support/result-fixture.ts";

const drop = (rate: number, p99: number): DropRun => ({
  couponId: "coupon-1",
  customerTokens: { minted: 1100, seconds: 1.5 },
  load: {
    requests: 2000,
    connections: 100,
    durationS: 2000 / rate,
    rate,
    latencyMs: { count: 2000, min: 1, mean: p99 / 3, p50: p99 / 4, p95: p99 / 2, p99, max: p99 * 2 },
    cpu: null,
    statusCounts: { "202": 100, "409": 100, "410": 1800 },
    errors: 0,
    timeouts: 0,
  },
  invariants: checkInvariants(
    {
      quantity: 100,
      accepted: 100,
      acceptedUsers: 100,
      conflicts: 100,
      soldOut: 1800,
      redisIssued: 100,
      rows: 100,
      rowUsers: 100,
      missingRows: 0,
      unconfirmedRows: 0,
      drained: true,
      drainWaitMs: 300,
    },
    { responses: 2000, winnerAttempts: 200 },
  ),
});

const result = (single: DropRun, cluster: DropRun | null): CouponDropResult => ({
  ...testResultHeader("coupon-drop", { redis: cluster === null ? "single" : "cluster" }),
  ...single,
  floodgateCluster: cluster,
  redisCluster: cluster === null ? null : TEST_REDIS_CLUSTER,
  redisTopology: cluster === null ? null : compareDrops(single, cluster),
  error: null,
});

describe("the coupon-drop summary", () => {
  it("prints one drop without naming a topology on the bench Redis alone", () => {
    const lines = summarizeCouponDrop(result(drop(8000, 12), null));
    expect(lines.filter((line) => line.includes("invariants: hold"))).toHaveLength(1);
    expect(lines.join("\n")).not.toMatch(/Redis Cluster|redis topology/);
  });

  it("prints both drops under their Redis, and the cluster's rate as a share of one Redis'", () => {
    const lines = summarizeCouponDrop(result(drop(8000, 12), drop(6000, 20)));
    const single = lines.indexOf("on one Redis (the bench Redis):");
    const cluster = lines.indexOf(
      "on a Redis Cluster (3 masters, ports 7001, 7002, 7003, no replicas, nothing persisted), issues in two steps:",
    );
    expect(single).toBeGreaterThan(0);
    expect(cluster).toBeGreaterThan(single);
    expect(lines.slice(single, cluster).join("\n")).toMatch(/8,000 responses\/s/);
    expect(lines.slice(cluster).join("\n")).toMatch(/6,000 responses\/s/);
    expect(lines.filter((line) => line.includes("invariants: hold"))).toHaveLength(2);
    expect(lines).toContain(
      "redis topology, drop: one Redis 8,000 responses/s (p99 12.0 ms), Redis Cluster 6,000 responses/s (p99 20.0 ms); cluster / one Redis 0.75 (75.0 %)",
    );
    expect(lines.at(-1)).toMatch(/one after the other, both on these 2 cpus .*what this machine shows/);
  });

  it("has no ratio when a side has no rate", () => {
    const failed: DropRun = { couponId: null, customerTokens: null, load: null, invariants: null };
    const lines = summarizeCouponDrop({
      ...result(drop(8000, 12), failed),
      error: "fetch failed",
    });
    expect(lines).toContain(
      "redis topology, drop: one Redis 8,000 responses/s (p99 12.0 ms), Redis Cluster n/a; no ratio (a rate is missing)",
    );
    expect(lines.at(-1)).toBe("ERROR: fetch failed");
  });
});
