import { describe, expect, it } from "vitest";
import { backlogBound, emptyBin, type SecondBin, secondsToRecover } from "../src/faults/recovery-time.ts";

const bins = (accepted: number[]): SecondBin[] =>
  accepted.map((n) => ({ ...emptyBin(), offered: 100, accepted: n }));

describe("backlogBound", () => {
  it("is twice the largest backlog before the fault, at least half a second of load", () => {
    expect(backlogBound([10, 80, 40], 100)).toBe(160);
    expect(backlogBound([1, 2], 100)).toBe(50);
    expect(backlogBound([], 1000)).toBe(500);
  });
});

describe("secondsToRecover", () => {
  it("is 0 when the seconds right after the fault are healthy", () => {
    const input = {
      bins: bins([100, 100, 0, 100, 100, 100]),
      backlog: [10, 10, 900, 10, 10, 10],
      rate: 100,
      faultStartSecond: 2,
      faultEndSecond: 3,
      healthySeconds: 3,
    };
    expect(secondsToRecover(input)).toBe(0);
  });

  it("waits for the backlog to come back within the bound, not only the 202s", () => {
    const input = {
      bins: bins([100, 100, 0, 100, 100, 100, 100, 100, 100]),
      backlog: [10, 20, 500, 400, 300, 30, 20, 10, 10],
      rate: 100,
      faultStartSecond: 2,
      faultEndSecond: 3,
      healthySeconds: 3,
    };
    expect(secondsToRecover(input)).toBe(2);
  });

  it("needs the healthy seconds in a row, and 202s at 90 % of the offered rate", () => {
    const input = {
      bins: bins([100, 100, 0, 100, 100, 80, 95, 100, 100]),
      backlog: [10, 10, 10, 10, 10, 10, 10, 10, 10],
      rate: 100,
      faultStartSecond: 2,
      faultEndSecond: 3,
      healthySeconds: 3,
    };
    expect(secondsToRecover(input)).toBe(3);
  });

  it("is null when it never recovers, or a second was not sampled", () => {
    const input = {
      bins: bins([100, 100, 0, 100, 100, 100]),
      backlog: [10, 10, 10, 10, null, 10],
      rate: 100,
      faultStartSecond: 2,
      faultEndSecond: 3,
      healthySeconds: 3,
    };
    expect(secondsToRecover(input)).toBeNull();
  });
});
