import { describe, expect, it } from "vitest";
import { type DoublingBackoff, doublingDelayMs } from "./doubling-backoff.ts";

const schedule = (backoff: DoublingBackoff, attempts: number, random?: () => number) =>
  Array.from({ length: attempts }, (_, i) => doublingDelayMs(backoff, i + 1, random));

describe("doublingDelayMs", () => {
  it("starts at firstMs and doubles per attempt up to maxMs, then stays there", () => {
    expect(schedule({ firstMs: 100, maxMs: 2_000 }, 7)).toEqual([100, 200, 400, 800, 1_600, 2_000, 2_000]);
    expect(schedule({ firstMs: 250, maxMs: 5_000 }, 6)).toEqual([250, 500, 1_000, 2_000, 4_000, 5_000]);
    expect(doublingDelayMs({ firstMs: 30_000, maxMs: 6 * 3_600_000 }, 100)).toBe(6 * 3_600_000);
  });

  it("counts an attempt below 1 as the first", () => {
    expect(doublingDelayMs({ firstMs: 100, maxMs: 2_000 }, 0)).toBe(100);
    expect(doublingDelayMs({ firstMs: 100, maxMs: 2_000 }, -3)).toBe(100);
  });

  it("ignores random without jitter", () => {
    expect(schedule({ firstMs: 100, maxMs: 2_000, jitter: "none" }, 3, () => 0)).toEqual([100, 200, 400]);
  });

  it("spreads an equal jitter between half the delay and all of it", () => {
    const backoff: DoublingBackoff = { firstMs: 200, maxMs: 10_000, jitter: "equal" };
    expect(schedule(backoff, 3, () => 0)).toEqual([100, 200, 400]);
    expect(schedule(backoff, 3, () => 0.5)).toEqual([150, 300, 600]);
    expect(doublingDelayMs(backoff, 10, () => 0)).toBe(5_000);
    expect(doublingDelayMs(backoff, 10, () => 0.999_999)).toBeLessThan(10_000);
  });

  it("spreads a full jitter between 0 and the delay", () => {
    const backoff: DoublingBackoff = { firstMs: 250, maxMs: 8_000, jitter: "full" };
    expect(schedule(backoff, 3, () => 0)).toEqual([0, 0, 0]);
    expect(schedule(backoff, 3, () => 0.5)).toEqual([125, 250, 500]);
    expect(doublingDelayMs(backoff, 20, () => 0.5)).toBe(4_000);
  });

  it("draws from Math.random by default, within the jitter's range", () => {
    for (let i = 0; i < 100; i++) {
      const delay = doublingDelayMs({ firstMs: 400, maxMs: 400, jitter: "equal" }, 1);
      expect(delay).toBeGreaterThanOrEqual(200);
      expect(delay).toBeLessThan(400);
    }
  });
});
