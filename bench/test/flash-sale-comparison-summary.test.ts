// The verdict of a flash-sale comparison from its sales' figures alone (no system runs): the ratio of the two
// sides' medians against the goal, and each round's own ratio beside it, printed so a reader sees the run's
// spread before trusting its median.
import { describe, expect, it } from "vitest";
import {
  type ComparedSale,
  comparisonVerdict,
  type FlashSaleComparisonResult,
  type SideKey,
  sideMedians,
  summarizeComparison,
} from "../src/flash-sale/flash-sale-comparison-summary.ts";

function sale(round: number, side: SideKey, joinsAnsweredPerS: number | null): ComparedSale {
  return {
    round,
    position: side === "this" ? 0 : 1,
    side,
    startedAt: "2026-11-30T08:45:00.000Z",
    finishedAt: "2026-11-30T08:46:00.000Z",
    settledS: 0,
    loadAverageAtStart: 0.5,
    ranFrom: null,
    figures: {
      joinsOfferedPerS: 10_000,
      joinsAnsweredPerS,
      joinP99Ms: 80,
      pushP99Ms: 100,
      livePositions: 1_000,
      joinListenOverflows: 0,
    },
    failedAudits: [],
    error: null,
    run: {} as ComparedSale["run"],
  };
}

/** A comparison's result around these sales, with the head fields the summary prints. */
function resultOf(sales: ComparedSale[]): FlashSaleComparisonResult {
  const medians = (["this", "other"] as const).map((side) => sideMedians(side, sales));
  return {
    scenario: "flash-sale",
    startedAt: "2026-11-30T08:45:00.000Z",
    finishedAt: "2026-11-30T09:00:00.000Z",
    commit: "abc1234",
    dirty: false,
    machine: {
      os: "Linux",
      cpuModel: "test cpu",
      cpuCount: 2,
      memoryGiB: 24,
      node: "v24",
      loadAverageAtStart: [0.5],
    },
    services: null,
    settings: {},
    loadGenerator: "test",
    mode: "comparison",
    sides: [
      { key: "this", label: "this checkout", checkout: "/a", commit: "abc1234" },
      { key: "other", label: "other checkout", checkout: "/b", commit: "def5678" },
    ],
    sales,
    medians,
    verdict: comparisonVerdict(medians, sales),
    error: null,
  } as unknown as FlashSaleComparisonResult;
}

function verdictOf(sales: ComparedSale[]) {
  const medians = (["this", "other"] as const).map((side) => sideMedians(side, sales));
  return comparisonVerdict(medians, sales);
}

describe("a flash-sale comparison's verdict", () => {
  it("takes the ratio of the medians and lists each round's ratio in round order", () => {
    // Sales recorded in the order they ran: the first side alternates.
    const sales = [
      sale(1, "this", 7_000),
      sale(1, "other", 7_500),
      sale(2, "other", 7_000),
      sale(2, "this", 4_400),
      sale(3, "this", 6_200),
      sale(3, "other", 5_600),
    ];
    const verdict = verdictOf(sales);
    expect(verdict.ratio).toBe(Math.round((6_200 / 7_000) * 1000) / 1000);
    expect(verdict.roundRatios).toEqual([0.933, 0.629, 1.107]);
    expect(verdict.met).toBe(false);
  });

  it("leaves a round without both figures as null, and prints the median of the rest", () => {
    const sales = [
      sale(1, "this", 5_000),
      sale(1, "other", 5_000),
      sale(2, "this", null),
      sale(2, "other", 6_000),
      sale(3, "this", 6_000),
      sale(3, "other", 5_000),
    ];
    const verdict = verdictOf(sales);
    expect(verdict.roundRatios).toEqual([1, null, 1.2]);
    expect(summarizeComparison(resultOf(sales))).toContain("  each round's: 1, n/a, 1.2 (their median 1.1)");
  });

  it("prints no round line for a single round", () => {
    const sales = [sale(1, "this", 5_000), sale(1, "other", 4_000)];
    expect(verdictOf(sales)).toMatchObject({ ratio: 1.25, met: true, roundRatios: [1.25] });
    const lines = summarizeComparison(resultOf(sales));
    expect(lines).toContain("joins answered/s, this / other = 1.25 (goal >= 0.95): met");
    expect(lines.some((line) => line.includes("each round's"))).toBe(false);
  });
});
