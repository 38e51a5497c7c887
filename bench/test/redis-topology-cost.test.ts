import { describe, expect, it } from "vitest";
import type { MaxStage } from "../src/payments/max-rate-search.ts";
import { compareRedisTopologies, redisTopologyLines } from "../src/redis-topology/redis-topology-cost.ts";

const stage = (offeredRate: number, acceptedRate: number, passed: boolean, ranFirst: boolean) =>
  ({ offeredRate, acceptedRate, p99Ms: passed ? 20 : 120, passed, ranFirst }) as unknown as MaxStage;

describe("one Redis against a Redis Cluster", () => {
  it("pairs the stages by rate, says which ran first, and gives the cluster's share of the max rate", () => {
    const cost = compareRedisTopologies(
      {
        max: {
          maxAcceptedRate: 8000,
          stages: [stage(4000, 4000, true, true), stage(8000, 8000, true, false)],
        },
      },
      {
        max: {
          maxAcceptedRate: 6000,
          stages: [stage(4000, 4000, true, false), stage(8000, 6000, false, true)],
        },
      },
    );
    expect(cost.maxRateRatio).toBe(0.75);
    expect(cost.stagePairs.map((pair) => [pair.offeredRate, pair.first])).toEqual([
      [4000, "single"],
      [8000, "cluster"],
    ]);
    expect(cost.stagePairs[1]?.cluster).toEqual({ acceptedRate: 6000, p99Ms: 120, passed: false });
    const lines = redisTopologyLines(cost);
    expect(lines[0]).toMatch(
      /one Redis 8,000\/s, Redis Cluster \(3 masters\) 6,000\/s; cluster = 75\.0 % of one Redis/,
    );
    expect(lines).toHaveLength(3);
  });

  it("has no ratio when a search found no passing stage, and reports the fixed-rate run alone", () => {
    const cost = compareRedisTopologies(
      { rate: { acceptedRate: 2000, intakeLatencyMs: { p99: 9 } } },
      { rate: { acceptedRate: 1990, intakeLatencyMs: { p99: 14 } } },
    );
    expect(cost.maxRateRatio).toBeNull();
    expect(redisTopologyLines(cost)).toEqual([
      "redis topology, fixed rate: accepted rate cluster / one Redis 0.995, intake p99 14 ms vs 9 ms",
    ]);
  });
});
