import { describe, expect, it } from "vitest";
import { shares, steadyRate } from "../src/harness/load-runner.ts";

describe("shares", () => {
  it("splits a total into parts that differ by at most one", () => {
    expect(shares(10, 3)).toEqual([4, 3, 3]);
    expect(shares(2, 4)).toEqual([1, 1, 0, 0]);
  });
});

describe("steadyRate", () => {
  it("averages the whole seconds between the ramp-up and the last second with any 2xx", () => {
    expect(steadyRate([1500, 4000, 3900, 4100, 2500, 0, 0])).toBe(4000);
  });

  it("is null when there is no whole second in between", () => {
    expect(steadyRate([1000, 1000])).toBeNull();
    expect(steadyRate([1000, 900, 0])).toBeNull();
    expect(steadyRate([])).toBeNull();
  });

  it("counts a second without any 2xx inside the run: a stall is part of the rate", () => {
    expect(steadyRate([100, 300, 0, 300, 50])).toBe(200);
  });
});
