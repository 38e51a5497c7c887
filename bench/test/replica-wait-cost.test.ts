import { describe, expect, it } from "vitest";
import type { MaxStage } from "../src/payments/max-rate-search.ts";
import { compareReplicaWait, replicaWaitLines } from "../src/redis-topology/replica-wait-cost.ts";

const stage = (offeredRate: number, acceptedRate: number, passed: boolean, ranFirst: boolean) =>
  ({ offeredRate, acceptedRate, p99Ms: passed ? 20 : 120, passed, ranFirst }) as unknown as MaxStage;

describe("REDIS_WAIT_REPLICAS=0 against =1 on one cluster", () => {
  it("pairs the stages by rate, says which ran first, and gives WAIT's share of the max rate", () => {
    const cost = compareReplicaWait(
      {
        max: {
          maxAcceptedRate: 8000,
          stages: [stage(4000, 4000, true, true), stage(8000, 8000, true, false)],
        },
      },
      {
        max: {
          maxAcceptedRate: 4000,
          stages: [stage(4000, 4000, true, false), stage(8000, 5000, false, true)],
        },
      },
    );
    expect(cost.maxRateRatio).toBe(0.5);
    expect(cost.stagePairs.map((pair) => [pair.offeredRate, pair.first])).toEqual([
      [4000, "no wait"],
      [8000, "wait"],
    ]);
    expect(cost.stagePairs[1]?.wait).toEqual({ acceptedRate: 5000, p99Ms: 120, passed: false });
    const lines = replicaWaitLines(cost);
    expect(lines[0]).toMatch(/REDIS_WAIT_REPLICAS=0 8,000\/s, =1 4,000\/s; WAIT 1 = 50\.0 % of no WAIT/);
    expect(lines).toHaveLength(3);
  });

  it("reports the fixed-rate run's medians and p99s, with no ratio of maxima without --max", () => {
    const cost = compareReplicaWait(
      { rate: { acceptedRate: 2000, intakeLatencyMs: { p50: 2, p99: 9 } } },
      { rate: { acceptedRate: 2000, intakeLatencyMs: { p50: 3, p99: 14 } } },
    );
    expect(cost.maxRateRatio).toBeNull();
    expect(replicaWaitLines(cost)).toEqual([
      "replica wait, fixed rate: accepted rate WAIT 1 / no WAIT 1, intake p50 3 vs 2 ms, p99 14 vs 9 ms",
    ]);
  });
});
