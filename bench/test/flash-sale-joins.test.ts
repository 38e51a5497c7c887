import { describe, expect, it } from "vitest";
import { type FlashSaleRun, joinsKeptPace } from "../src/flash-sale/flash-sale-summary.ts";

const joins = (offeredRate: number, answeredRate: number, p99: number): FlashSaleRun["joins"] => ({
  offeredRate,
  answeredRate,
  activeS: 2,
  wallS: 2.9,
  statusCounts: { "201": 1 },
  latencyMs: { count: 1, min: p99, mean: p99, p50: p99, p95: p99, p99, max: p99 },
  cpu: null,
});

describe("joinsKeptPace", () => {
  it("passes 5,000/s offered, answered at pace, p99 under 50 ms", () => {
    expect(joinsKeptPace(joins(5000, 4900, 30))).toBe(true);
  });

  it("fails a slow p99, answers falling behind, or too little offered", () => {
    expect(joinsKeptPace(joins(5000, 4900, 50))).toBe(false);
    expect(joinsKeptPace(joins(10_000, 3338, 30))).toBe(false);
    expect(joinsKeptPace(joins(4000, 4000, 5))).toBe(false);
  });

  it("fails without latencies", () => {
    expect(joinsKeptPace({ ...joins(5000, 5000, 1), latencyMs: null })).toBe(false);
  });
});
