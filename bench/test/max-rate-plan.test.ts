import { describe, expect, it } from "vitest";
import {
  maxAcceptedRate,
  nextRate,
  type StageVerdict,
  stagePassed,
  stageShortfalls,
} from "../src/harness/max-rate-plan.ts";

const stage = (offeredRate: number, passed: boolean, acceptedRate = offeredRate): StageVerdict => ({
  offeredRate,
  acceptedRate,
  passed,
});

describe("nextRate", () => {
  it("starts at 500 and doubles while stages pass", () => {
    expect(nextRate([])).toBe(500);
    expect(nextRate([stage(500, true), stage(1000, true)])).toBe(2000);
  });

  it("bisects between the best pass and the lowest failure above it, then stops within 3%", () => {
    const stages = [stage(500, true), stage(1000, true), stage(2000, false)];
    expect(nextRate(stages)).toBe(1500);
    stages.push(stage(1500, true));
    expect(nextRate(stages)).toBe(1750);
    stages.push(stage(1750, false));
    expect(nextRate(stages)).toBe(1630);
    stages.push(stage(1630, true));
    expect(nextRate(stages)).toBe(1690); // 1750 is 7.4% above 1630
    stages.push(stage(1690, true));
    expect(nextRate(stages)).toBe(1720); // 3.6% above
    stages.push(stage(1720, true));
    expect(nextRate(stages)).toBeNull(); // 1750 is within 3% of 1720
    expect(maxAcceptedRate(stages)).toBe(1720);
  });

  it("halves below a failing first stage, and gives up under 20/s", () => {
    expect(nextRate([stage(500, false)])).toBe(250);
    expect(nextRate([stage(20, false)])).toBeNull();
    expect(maxAcceptedRate([stage(500, false)])).toBeNull();
  });

  it("stops at the stage limit and at the generator's ceiling", () => {
    const twelve = Array.from({ length: 12 }, (_, i) => stage(500 + 100 * i, i % 2 === 0));
    expect(nextRate(twelve)).toBeNull();
    expect(nextRate([stage(64_000, true)])).toBeNull();
  });
});

describe("stagePassed", () => {
  const base = { offeredRate: 1000, acceptedRate: 990, p99Ms: 20, failures: 0, responses: 10_000 };

  it("passes under 50 ms p99 with the pace kept and no failures", () => {
    expect(stagePassed(base)).toBe(true);
  });

  it.each([
    ["p99 at the limit", { p99Ms: 50 }],
    ["no samples", { p99Ms: null }],
    ["pace not kept", { acceptedRate: 900 }],
    ["failures above 0.1%", { failures: 11 }],
  ])("fails with %s", (_name, change) => {
    expect(stagePassed({ ...base, ...change })).toBe(false);
  });
});

describe("stageShortfalls", () => {
  const base = { offeredRate: 1000, acceptedRate: 990, p99Ms: 20, failures: 0, responses: 10_000 };

  it("names nothing for a passing stage", () => {
    expect(stageShortfalls(base)).toEqual([]);
  });

  it("names each limit a stage missed, and only those", () => {
    expect(stageShortfalls({ ...base, p99Ms: 73 })).toEqual(["p99 73 ms >= 50 ms"]);
    expect(stageShortfalls({ ...base, acceptedRate: 899, failures: 11 })).toEqual([
      "accepted 89.9 % of offered < 95 %",
      "failures 11 > 0.1 % of 10000 answers",
    ]);
    expect(stageShortfalls({ ...base, p99Ms: null })).toEqual(["no answers"]);
  });
});
