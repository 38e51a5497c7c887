import { describe, expect, it } from "vitest";
import {
  DEFAULT_SUSTAINED_PLAN,
  highestSustainedRate,
  nextSustainedRate,
  type SustainedPlan,
  type SustainedVerdict,
} from "../src/payments/sustained-plan.ts";
import { sustainedVerdict } from "../src/payments/sustained-stage.ts";

const plan: SustainedPlan = { ...DEFAULT_SUSTAINED_PLAN, startRate: 2000, maxStages: 10 };
const pass = (offeredRate: number): SustainedVerdict => ({ offeredRate, passed: true });
const fail = (offeredRate: number): SustainedVerdict => ({ offeredRate, passed: false });

describe("nextSustainedRate", () => {
  it("starts at the start rate and steps up by a quarter, rounded to 100, while stages pass", () => {
    expect(nextSustainedRate([], plan)).toBe(2000);
    expect(nextSustainedRate([pass(2000)], plan)).toBe(2500);
    expect(nextSustainedRate([pass(2000), pass(2500)], plan)).toBe(3100);
  });

  it("bisects between the best pass and the lowest failure above it, twice, then stops", () => {
    const stages = [pass(2000), pass(2500), fail(3100)];
    expect(nextSustainedRate(stages, plan)).toBe(2800);
    expect(nextSustainedRate([...stages, pass(2800)], plan)).toBe(3000);
    expect(nextSustainedRate([...stages, fail(2800)], plan)).toBe(2700);
    expect(nextSustainedRate([...stages, pass(2800), fail(3000)], plan)).toBeNull();
  });

  it("halves towards zero when the first stage fails", () => {
    expect(nextSustainedRate([fail(2000)], plan)).toBe(1000);
    expect(nextSustainedRate([fail(2000), fail(1000)], plan)).toBe(500);
  });

  it("stops at the stage cap, above the ceiling, and when the bracket is too narrow to split", () => {
    expect(nextSustainedRate([pass(2000)], { ...plan, maxStages: 1 })).toBeNull();
    expect(nextSustainedRate([pass(60_000)], plan)).toBeNull();
    expect(nextSustainedRate([pass(2000), fail(2100)], plan)).toBeNull();
  });
});

describe("highestSustainedRate", () => {
  it("is the highest passing offered rate, null when none passed", () => {
    expect(highestSustainedRate([pass(2000), pass(2500), fail(3100), pass(2800)])).toBe(2800);
    expect(highestSustainedRate([fail(2000)])).toBeNull();
  });
});

describe("sustainedVerdict", () => {
  const held = {
    offeredRate: 2000,
    acceptedRate: 1998,
    responses: 20_000,
    accepted: 20_000,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    statusCounts: { "202": 20_000 },
    p50Ms: 2,
    p99Ms: 9,
    appliedOnce: 20_000,
    exactlyOnce: true,
    allApplied: true,
    maxLagS: 0.4,
    lagSeriesS: [0.1, 0.4, 0],
    lagFailedSamples: 0,
    cpu: null,
  };

  it("passes a stage with every answer a 202, all applied once and the lag under 1 s", () => {
    expect(sustainedVerdict(held)).toEqual([]);
  });

  it.each([
    [
      { accepted: 19_990, non2xx: 10, statusCounts: { "202": 19_990, "503": 10 } },
      "not every answer a 202 (503: 10, errors 0",
    ],
    [{ errors: 1 }, "not every answer a 202"],
    [{ acceptedRate: 1800 }, "accepted 1800/s of 2000/s offered"],
    [{ allApplied: false }, "not every accepted payment applied exactly once"],
    [{ exactlyOnce: false }, "not every accepted payment applied exactly once"],
    [{ maxLagS: 1 }, "consumer lag reached 1 s"],
    [{ maxLagS: null, lagSeriesS: [] }, "no lag sample"],
    [{ lagFailedSamples: 2 }, "2 lag sample(s) could not be read"],
    [{ responses: 0, accepted: 0 }, "no response"],
  ])("fails %j: %s", (change, reason) => {
    expect(sustainedVerdict({ ...held, ...change })).toContainEqual(expect.stringContaining(reason));
  });
});
