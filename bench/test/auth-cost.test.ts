import { describe, expect, it } from "vitest";
import { authCostLines, compareAuth, stagePairs } from "../src/payments/auth-cost.ts";
import type { MaxStage } from "../src/payments/max-rate-search.ts";

const latency = (p99: number) => ({ p99 });

describe("compareAuth", () => {
  it("puts auth on over AUTH=off for --max and judges the 90 % goal", () => {
    const met = compareAuth({ max: { maxAcceptedRate: 9500 } }, { max: { maxAcceptedRate: 10_000 } });
    expect(met).toMatchObject({
      authOnMaxRate: 9500,
      authOffMaxRate: 10_000,
      maxRateRatio: 0.95,
      goalMet: true,
    });
    const exactly = compareAuth({ max: { maxAcceptedRate: 9000 } }, { max: { maxAcceptedRate: 10_000 } });
    expect(exactly).toMatchObject({ maxRateRatio: 0.9, goalMet: true });
    // Judged before rounding: 89.99 % is below the goal.
    const missed = compareAuth({ max: { maxAcceptedRate: 8999 } }, { max: { maxAcceptedRate: 10_000 } });
    expect(missed).toMatchObject({ maxRateRatio: 0.9, goalMet: false });
    const below = compareAuth({ max: { maxAcceptedRate: 8900 } }, { max: { maxAcceptedRate: 10_000 } });
    expect(below).toMatchObject({ maxRateRatio: 0.89, goalMet: false });
    expect(authCostLines(below)[0]).toContain("NOT met");
  });

  it("has no ratio when a search found no passing stage, or without --max", () => {
    expect(
      compareAuth({ max: { maxAcceptedRate: null } }, { max: { maxAcceptedRate: 10_000 } }),
    ).toMatchObject({
      maxRateRatio: null,
      goalMet: null,
    });
    const fixed = compareAuth(
      { rate: { acceptedRate: 1990, intakeLatencyMs: latency(12) } },
      { rate: { acceptedRate: 2000, intakeLatencyMs: latency(10) } },
    );
    expect(fixed).toMatchObject({
      maxRateRatio: null,
      acceptedRateRatio: 0.995,
      intakeP99Ms: { authOn: 12, authOff: 10 },
    });
    expect(authCostLines(fixed)).toEqual([
      "auth cost, fixed rate: accepted rate auth on / AUTH=off 0.995, intake p99 12 ms vs 10 ms",
    ]);
  });
});

describe("stagePairs", () => {
  const stage = (offeredRate: number, p99Ms: number, passed: boolean, ranFirst: boolean): MaxStage => ({
    offeredRate,
    acceptedRate: offeredRate - 1,
    p50Ms: 1,
    p99Ms,
    failures: 0,
    endToEndP99Ms: null,
    exactlyOnce: true,
    missing: 0,
    duplicated: 0,
    allApplied: true,
    passed,
    cpu: null,
    ranFirst,
  });

  it("puts both systems' stage of each rate side by side, with which ran first", () => {
    const on = [stage(500, 4, true, true), stage(1000, 60, false, false)];
    const off = [stage(500, 3, true, false), stage(1000, 20, true, true)];
    expect(stagePairs(on, off)).toEqual([
      {
        offeredRate: 500,
        first: "authOn",
        authOn: { acceptedRate: 499, p99Ms: 4, passed: true },
        authOff: { acceptedRate: 499, p99Ms: 3, passed: true },
      },
      {
        offeredRate: 1000,
        first: "authOff",
        authOn: { acceptedRate: 999, p99Ms: 60, passed: false },
        authOff: { acceptedRate: 999, p99Ms: 20, passed: true },
      },
    ]);
    const cost = compareAuth(
      { max: { maxAcceptedRate: 499, stages: on } },
      { max: { maxAcceptedRate: 999, stages: off } },
    );
    expect(cost).toMatchObject({ maxRateRatio: 0.499, goalMet: false });
    expect(authCostLines(cost).slice(1)).toEqual([
      "  pair 1 @ 500/s (auth on first): auth on accepted 499/s p99 4 ms pass | AUTH=off accepted 499/s p99 3 ms pass",
      "  pair 2 @ 1,000/s (AUTH=off first): auth on accepted 999/s p99 60 ms fail | AUTH=off accepted 999/s p99 20 ms pass",
    ]);
  });

  it("pairs only stages of the same rate", () => {
    expect(stagePairs([stage(500, 4, true, true)], [stage(1000, 3, true, false)])).toEqual([]);
  });
});
