import { describe, expect, it } from "vitest";
import type { StageVerdict } from "../src/harness/max-rate-plan.ts";
import { DEFAULT_PAIRED_PLAN, nextPairedRate, pairOrder } from "../src/payments/paired-max-plan.ts";

/** Runs the paired search against two systems whose stages pass up to a fixed rate. */
function search(onMax: number, offMax: number) {
  const on: StageVerdict[] = [];
  const off: StageVerdict[] = [];
  for (let rate = nextPairedRate([on, off]); rate !== null; rate = nextPairedRate([on, off])) {
    on.push({ offeredRate: rate, acceptedRate: rate, passed: rate <= onMax });
    off.push({ offeredRate: rate, acceptedRate: rate, passed: rate <= offMax });
  }
  return { on, off, rates: on.map((s) => s.offeredRate) };
}

const best = (stages: StageVerdict[]) =>
  Math.max(0, ...stages.filter((s) => s.passed).map((s) => s.offeredRate));
const lowestFailAbove = (stages: StageVerdict[], rate: number) =>
  Math.min(...stages.filter((s) => !s.passed && s.offeredRate > rate).map((s) => s.offeredRate));

describe("pairOrder", () => {
  it("alternates which system runs first, starting with the first", () => {
    expect([0, 1, 2, 3].map(pairOrder)).toEqual([
      [0, 1],
      [1, 0],
      [0, 1],
      [1, 0],
    ]);
  });
});

describe("nextPairedRate", () => {
  it("starts where a single search starts and doubles while both pass", () => {
    expect(nextPairedRate([[], []])).toBe(500);
    const pass = (offeredRate: number) => ({ offeredRate, acceptedRate: offeredRate, passed: true });
    expect(nextPairedRate([[pass(500)], [pass(500)]])).toBe(1000);
  });

  it("with equal systems, runs the single search's rates", () => {
    const { rates, on, off } = search(1720, 1720);
    expect(rates).toEqual([500, 1000, 2000, 1500, 1750, 1630, 1690, 1720]);
    expect(on).toEqual(off);
  });

  it("goes on while either still passes, until both have failed within 3 % above their best", () => {
    const { on, off, rates } = search(7300, 8100);
    // 8,000 fails for auth on and passes for AUTH=off: auth on's bisection first (the lower rates), then AUTH=off
    // doubles on, as it would alone, until it too has failed above its best.
    expect(rates).toEqual([
      500, 1000, 2000, 4000, 8000, 6000, 7000, 7500, 7250, 7380, 16_000, 12_000, 10_000, 9000, 8500, 8250,
      8130,
    ]);
    for (const stages of [on, off]) {
      const passed = best(stages);
      expect((lowestFailAbove(stages, passed) - passed) / passed).toBeLessThanOrEqual(0.03);
    }
    expect(best(on)).toBeLessThanOrEqual(7300);
    expect(best(on) / 7300).toBeGreaterThan(0.97);
    expect(best(off) / 8100).toBeGreaterThan(0.97);
    expect(rates.length).toBeLessThanOrEqual(DEFAULT_PAIRED_PLAN.maxStages);
    expect(new Set(rates).size).toBe(rates.length); // no rate twice
  });

  it("prefers a rate that moves both brackets, else the lower one", () => {
    const v = (offeredRate: number, passed: boolean): StageVerdict => ({
      offeredRate,
      acceptedRate: offeredRate,
      passed,
    });
    // auth on: [4000, 8000] -> 6000; AUTH=off: [4000, 8000] too -> the same rate moves both.
    const both = [v(4000, true), v(8000, false)];
    expect(nextPairedRate([both, both])).toBe(6000);
    // auth on [6000, 7000] wants 6500; AUTH=off [7000, 8000] wants 7500: neither moves the other, the lower first.
    const on = [v(4000, true), v(8000, false), v(6000, true), v(7000, false)];
    const off = [v(4000, true), v(8000, false), v(6000, true), v(7000, true)];
    expect(nextPairedRate([on, off])).toBe(6500);
    // auth on settled (6900 passed, 7000 within 3 %): AUTH=off's own rate.
    expect(
      nextPairedRate([
        [...on, v(6900, true)],
        [...off, v(6900, true)],
      ]),
    ).toBe(7500);
  });

  it("ends when neither system wants a rate, or at the pair limit", () => {
    const { rates } = search(10, 10); // nothing passes: both give up under 20/s
    expect(rates.at(-1)).toBeLessThanOrEqual(20);
    const pass = { offeredRate: 64_000, acceptedRate: 64_000, passed: true };
    expect(nextPairedRate([[pass], [pass]])).toBeNull(); // both at the generator's ceiling
    const limit = Array.from({ length: DEFAULT_PAIRED_PLAN.maxStages }, (_, i) => ({
      offeredRate: 500 + i,
      acceptedRate: 500 + i,
      passed: i % 2 === 0,
    }));
    expect(nextPairedRate([limit, limit])).toBeNull();
    expect(() => nextPairedRate([limit, []])).toThrow();
  });
});
