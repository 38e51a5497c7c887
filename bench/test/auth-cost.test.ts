import { describe, expect, it } from "vitest";
import { authCostLines, compareAuth } from "../src/auth-cost.ts";

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
