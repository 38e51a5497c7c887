import { describe, expect, it } from "vitest";
import { perSecondSeries } from "../src/harness/per-second-series.ts";

describe("perSecondSeries", () => {
  it("splits the response times at each second's first response and takes that second's percentiles", () => {
    const series = perSecondSeries({
      latencies: [1, 3, 2, 10, 20, 30, 40, 5],
      secondStarts: [0, 3, 3, 7],
      okPerSecond: [3, 0, 4, 1],
    });
    expect(series.responses).toEqual([3, 0, 4, 1]);
    expect(series.accepted).toEqual([3, 0, 4, 1]);
    expect(series.p50Ms).toEqual([2, null, 25, 5]);
    expect(series.p99Ms[0]).toBeCloseTo(2.98);
    expect(series.p99Ms[1]).toBeNull();
  });

  it("keeps the seconds counted by the 2xx after the last answered one", () => {
    const series = perSecondSeries({ latencies: [4], secondStarts: [0], okPerSecond: [1, 0] });
    expect(series.accepted).toEqual([1, 0]);
    expect(series.p99Ms).toEqual([4, null]);
  });
});
