import { describe, expect, it } from "vitest";
import { renderResultChart } from "../src/charts/result-chart.ts";
import { testResultHeader } from "./support/result-fixture.ts";
import { assertWellFormed, barHeights, texts } from "./support/svg-checks.ts";

const TARGETS = [
  { key: "floodgate", label: "floodgate AUTH=off" },
  { key: "floodgateAuthOn", label: "floodgate auth on" },
  { key: "raw", label: "peer raw" },
  { key: "bullmq", label: "peer bullmq" },
];

const stage = (
  round: number,
  target: string,
  position: number,
  acceptedRate: number,
  p50: number,
  p99: number,
) => ({
  round,
  target,
  position,
  durationS: 10,
  requests: acceptedRate * 10,
  accepted: acceptedRate * 10,
  acceptedRate,
  statuses: { 202: acceptedRate * 10 },
  latencyMs: { p50, p90: p99 / 2, p99, max: p99 * 3 },
  passed: true,
  failure: null as string | null,
});

const verdict = (name: string, numerator: string, denominator: string, ratio: number, goal: number) => ({
  name,
  numerator,
  denominator,
  ratio,
  goal,
  met: ratio >= goal,
  note: null,
});

/** `bench payments --max --generator wrk --peer raw --peer bullmq`, two rounds, the others' order rotating. */
const saturationResult = () => ({
  ...testResultHeader("payments", {
    max: true,
    auth: "compare",
    generator: "wrk",
    peers: ["raw", "bullmq"],
    rounds: 2,
  }),
  loadGenerator: "wrk (C, a child process), one thread, 100 connections, closed loop",
  mode: "saturation",
  users: 5000,
  targets: TARGETS,
  // The AUTH=off reference between every two other stages (round-order.ts).
  stages: [
    stage(1, "floodgate", 0, 10000, 8, 22),
    stage(1, "floodgateAuthOn", 1, 9000, 9, 25),
    stage(1, "floodgate", 2, 14000, 8, 22),
    stage(1, "raw", 3, 30000, 3, 14),
    stage(1, "floodgate", 4, 10000, 8, 22),
    stage(1, "bullmq", 5, 14000, 6, 17),
    stage(1, "floodgate", 6, 10000, 8, 22),
    stage(2, "raw", 0, 24000, 4, 16),
    stage(2, "floodgate", 1, 10000, 9, 21),
    stage(2, "bullmq", 2, 15000, 7, 18),
    stage(2, "floodgate", 3, 10000, 9, 21),
    stage(2, "floodgateAuthOn", 4, 9400, 10, 45),
    stage(2, "floodgate", 5, 10000, 9, 21),
  ],
  medians: [
    { target: "floodgate", stages: 7, failedStages: 0, acceptedRate: 10000, p99Ms: 21 },
    { target: "floodgateAuthOn", stages: 2, failedStages: 0, acceptedRate: 9200, p99Ms: 35 },
    { target: "raw", stages: 2, failedStages: 0, acceptedRate: 27000, p99Ms: 15 },
    { target: "bullmq", stages: 2, failedStages: 0, acceptedRate: 14500, p99Ms: 17.5 },
  ],
  verdicts: [
    verdict("floodgate / raw", "floodgate", "raw", 0.389, 0.6),
    verdict("floodgate / bullmq", "floodgate", "bullmq", 0.724, 1),
    verdict("auth on / AUTH=off", "floodgateAuthOn", "floodgate", 0.876, 0.9),
  ],
  error: null,
});

/** Bars left to right: taller (in px) exactly where the value is larger. */
function expectHeightsFollow(heights: number[], values: number[]): void {
  expect(heights).toHaveLength(values.length);
  for (let i = 1; i < values.length; i++) {
    const a = values[i - 1]!;
    const b = values[i]!;
    if (b > a) expect(heights[i]!).toBeGreaterThan(heights[i - 1]!);
    if (b < a) expect(heights[i]!).toBeLessThan(heights[i - 1]!);
    if (b === a) expect(heights[i]!).toBe(heights[i - 1]!);
  }
}

describe("renderResultChart, payments saturation comparison (--generator wrk)", () => {
  it("draws accepted/s per round and their median, and p50/p99 per round, one colour per target", () => {
    const svg = renderResultChart(saturationResult(), "saturation.json");
    assertWellFormed(svg);
    expect(texts(svg)).toEqual(
      expect.arrayContaining([
        "payments bench",
        "floodgate AUTH=off",
        "floodgate auth on",
        "peer raw",
        "peer bullmq",
        "peer raw p50",
        "floodgate auth on p99",
        "round 1",
        "round 2",
        "median of the rounds",
        "round",
        "accepted (payments/s)",
        "response time (ms)",
      ]),
    );
    // Round 1, round 2, the median: 30,000 > 27,000 > 24,000 for raw.
    expectHeightsFollow(barHeights(svg, "peer raw"), [30000, 24000, 27000]);
    expectHeightsFollow(barHeights(svg, "floodgate auth on p99"), [25, 45]);
    // A target with several stages in a round (the reference) is drawn at their mean: 11,000 in round 1
    // (10,000, 14,000, 10,000, 10,000: their median or last would draw 10,000), 10,000 in round 2, then the
    // median of the run, 10,000.
    expectHeightsFollow(barHeights(svg, "floodgate AUTH=off"), [11000, 10000, 10000]);
    // One scale per panel: the targets' round-1 bars in the order of their rates.
    const roundOne = TARGETS.map((t) => barHeights(svg, t.label)[0]!);
    expectHeightsFollow(roundOne, [11000, 9000, 30000, 14000]);
    const colours = TARGETS.map((t) => svg.match(new RegExp(`data-series="${t.label}" fill="([^"]+)"`))?.[1]);
    expect(new Set(colours).size).toBe(TARGETS.length);
  });

  it("says each goal's ratio, met or not, and the command with its peers, in the title block", () => {
    const words = texts(renderResultChart(saturationResult(), "saturation.json"));
    expect(words).toEqual(
      expect.arrayContaining([
        "floodgate / raw 0.389 (goal >= 0.6): not met",
        "floodgate / bullmq 0.724 (goal >= 1): not met",
        "auth on / AUTH=off 0.876 (goal >= 0.9): not met",
        "load: wrk (C, a child process), one thread, 100 connections, closed loop",
      ]),
    );
    expect(words.some((w) => w.includes("--generator wrk --peer raw --peer bullmq"))).toBe(true);
  });

  it("names a failed stage and a goal not run", () => {
    const result = saturationResult();
    result.stages[8]!.passed = false;
    result.stages[8]!.failure = "503: 120";
    Object.assign(result.verdicts[1]!, { ratio: null, met: null, note: "not run" });
    const svg = renderResultChart(result, "failed-stage.json");
    assertWellFormed(svg);
    expect(texts(svg)).toEqual(
      expect.arrayContaining([
        "round 2 #2, floodgate AUTH=off FAILED: 503: 120",
        "floodgate / bullmq: not run (goal >= 1)",
      ]),
    );
  });

  it("fails naming what a saturation result lacks", () => {
    const { stages: _, ...withoutStages } = saturationResult();
    expect(() => renderResultChart(withoutStages, "odd.json")).toThrow(
      "odd.json: stages is missing (an array expected)",
    );
  });
});
