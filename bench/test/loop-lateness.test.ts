import { describe, expect, it } from "vitest";
import { lateMs, startLoopLateness } from "../src/harness/loop-lateness.ts";

describe("lateMs", () => {
  it("is what an interval of the 10 ms sampling timer ran past 10 ms, never negative", () => {
    expect(lateMs(10_100_000)).toBe(0.1);
    expect(lateMs(142_500_000)).toBe(132.5);
    expect(lateMs(9_900_000)).toBe(0);
  });
});

describe("startLoopLateness", () => {
  it("sees a loop blocked by synchronous work", async () => {
    const lateness = startLoopLateness();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const blockedUntil = Date.now() + 120;
    while (Date.now() < blockedUntil) {
      // the loop runs no timer while this spins
    }
    await new Promise((resolve) => setTimeout(resolve, 30));
    const { max } = lateness.stop();
    // A lower bound only: the spin alone delays the sampling timer by at least 100 ms.
    expect(max).toBeGreaterThanOrEqual(100);
  });
});
