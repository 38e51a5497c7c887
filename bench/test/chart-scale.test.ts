import { describe, expect, it } from "vitest";
import { formatTick, linearScale, niceStep } from "../src/charts/chart-scale.ts";

describe("linearScale", () => {
  it("widens the domain to round ticks and maps larger values further along the range", () => {
    const scale = linearScale(0, 9748, [300, 50]);
    expect(scale.ticks).toEqual([0, 2000, 4000, 6000, 8000, 10000]);
    expect(scale.at(0)).toBe(300);
    expect(scale.at(10000)).toBe(50);
    expect(scale.at(9748)).toBeLessThan(scale.at(9000));
  });

  it("draws a flat or empty series on a usable scale", () => {
    expect(linearScale(0, 0, [0, 100]).ticks.length).toBeGreaterThan(1);
    expect(linearScale(5, 5, [0, 100]).max).toBeGreaterThan(5);
    expect(Number.isFinite(linearScale(Number.NaN, Number.NaN, [0, 100]).at(0.5))).toBe(true);
  });

  it("picks 1, 2 or 5 times a power of ten", () => {
    expect([0.03, 0.7, 3, 18, 420].map(niceStep)).toEqual([0.05, 1, 5, 20, 500]);
  });

  it("labels thousands with k", () => {
    expect([0, 2.5, 250, 1500, 12000].map(formatTick)).toEqual(["0", "2.5", "250", "1.5k", "12k"]);
  });
});
