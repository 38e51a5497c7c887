import { describe, expect, it } from "vitest";
import { formatLatency, percentile, summarizeLatencies } from "../src/harness/latency-summary.ts";

describe("percentile", () => {
  it("interpolates between closest ranks like percentile_cont", () => {
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(percentile([10, 20], 0.99)).toBeCloseTo(19.9);
    expect(percentile([7], 0.95)).toBe(7);
  });

  it("returns NaN for no samples and rejects fractions outside [0, 1]", () => {
    expect(percentile([], 0.5)).toBeNaN();
    expect(() => percentile([1], 1.5)).toThrow(RangeError);
  });
});

describe("summarizeLatencies", () => {
  it("sorts unsorted samples and rounds to 0.01", () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 .. 1
    expect(summarizeLatencies(samples)).toEqual({
      count: 100,
      min: 1,
      mean: 50.5,
      p50: 50.5,
      p95: 95.05,
      p99: 99.01,
      max: 100,
    });
  });

  it("is null without samples, and prints n/a", () => {
    expect(summarizeLatencies([])).toBeNull();
    expect(formatLatency(null)).toBe("n/a");
  });

  it("prints seconds for long latencies", () => {
    const summary = summarizeLatencies([20_000, 20_000]);
    expect(formatLatency(summary)).toContain("p99 20.0 s");
  });
});
