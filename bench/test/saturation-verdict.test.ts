// The saturation comparison's bookkeeping: which answers fail a stage, the order of each round, each target's
// medians and the goals' verdicts.
import { describe, expect, it } from "vitest";
import { median } from "../src/harness/median.ts";
import { comparisonRatios, steadyReferences } from "../src/payments/saturation/bracketed-comparisons.ts";
import { bracketedStages, extraRound, roundOrder } from "../src/payments/saturation/round-order.ts";
import {
  restOfMachine,
  type SaturationStage,
  stageFailure,
  type TargetKey,
  withWrk,
} from "../src/payments/saturation/saturation-stage.ts";
import {
  ratioVerdicts,
  steadyShortfall,
  targetMedians,
} from "../src/payments/saturation/saturation-verdict.ts";
import type { WrkReport } from "../src/payments/saturation/wrk-run.ts";
import { saturationStage } from "./support/saturation-stage-fixture.ts";

const report = (statuses: Record<string, number>, errors: Partial<WrkReport["errors"]> = {}): WrkReport => ({
  requests: Object.values(statuses).reduce((a, b) => a + b, 0),
  durationUs: 10_000_000,
  statuses,
  errors: { connect: 0, read: 0, write: 0, timeout: 0, ...errors },
  latencyUs: { p50: 1000, p90: 2000, p99: 3000, max: 4000 },
  cpuS: 0.5,
});

const stage = (target: TargetKey, acceptedRate: number, passed = true, round = 1): SaturationStage =>
  saturationStage(target, acceptedRate, { passed, round });

describe("stageFailure", () => {
  it("passes a stage of 202s only", () => {
    expect(stageFailure(report({ "202": 1000 }))).toBeNull();
  });

  it("fails any other answer, shed load and backpressure included, and socket errors", () => {
    expect(stageFailure(report({ "202": 1000, "503": 12 }))).toBe("12 x 503");
    expect(stageFailure(report({ "202": 1000, "201": 1 }))).toBe("1 x 201");
    expect(stageFailure(report({ "202": 1000 }, { timeout: 3 }))).toBe("3 timeout errors");
    expect(stageFailure(report({}))).toBe("nothing accepted");
  });
});

describe("withWrk", () => {
  it("adds wrk's cpu, which /proc never shows (it lives inside the window), to the load generator", () => {
    const usage = {
      windowS: 10,
      percentOfOneCore: { intake: 90, workers: 0, redis: 35, postgres: 0, loadGenerator: 0.2, other: 3 },
      totalPercent: 128.2,
      cores: 2,
    };
    expect(withWrk(usage, 1)).toMatchObject({
      percentOfOneCore: { intake: 90, loadGenerator: 10.2 },
      totalPercent: 138.2,
    });
    expect(withWrk(null, 1)).toBeNull();
  });

  it("leaves, beside the target, Redis and wrk, what the rest of the machine used", () => {
    const usage = {
      windowS: 10,
      percentOfOneCore: { intake: 90, workers: 0, redis: 35, postgres: 0, loadGenerator: 10, other: 13 },
      totalPercent: 148,
      cores: 2,
    };
    expect(restOfMachine(usage, [9, 3.5, 1])).toBe(13);
    expect(restOfMachine(usage, [9, null, 1])).toBeNull();
    expect(restOfMachine(null, [1])).toBeNull();
  });
});

describe("roundOrder", () => {
  it("rotates the targets by one per round, so each runs first in turn", () => {
    const targets = ["a", "b", "c", "d"];
    expect(roundOrder(targets, 0)).toEqual(["a", "b", "c", "d"]);
    expect(roundOrder(targets, 1)).toEqual(["b", "c", "d", "a"]);
    expect(roundOrder(targets, 5)).toEqual(["b", "c", "d", "a"]);
    expect(roundOrder([], 3)).toEqual([]);
  });

  it("runs the reference between every two other stages, the others rotating from round to round", () => {
    const plan = bracketedStages("f", ["a", "b"], 2).map((s) => `${s.round}.${s.position}:${s.target}`);
    expect(plan).toEqual(["1.0:f", "1.1:a", "1.2:f", "1.3:b", "1.4:f", "2.0:b", "2.1:f", "2.2:a", "2.3:f"]);
    expect(bracketedStages("f", [], 3).map((s) => `${s.round}:${s.target}`)).toEqual(["1:f", "2:f", "3:f"]);
  });

  it("adds an extra round: a fresh reference, then the targets still short, each followed by the reference", () => {
    const plan = extraRound("f", ["a", "b"], 4).map((s) => `${s.round}.${s.position}:${s.target}`);
    expect(plan).toEqual(["4.0:f", "4.1:b", "4.2:f", "4.3:a", "4.4:f"]);
    expect(extraRound("f", ["a"], 3).map((s) => s.target)).toEqual(["f", "a", "f"]);
  });
});

describe("medians and verdicts", () => {
  it("takes the middle value, or the mean of the middle two", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });

  it("judges each goal on the median of the rounds' ratios, each stage against the reference stages around it", () => {
    // The reference alternates 9,600 and 10,400 (8.3 % apart: steady), 10,000 around every other stage.
    const stages = [
      stage("floodgate", 9600, true, 1),
      stage("floodgateAuthOn", 9500, true, 1),
      stage("floodgate", 10_400, true, 1),
      stage("raw", 16_000, true, 1),
      stage("floodgate", 9600, true, 1),
      stage("bullmq", 10_000, true, 1),
      stage("floodgate", 10_400, true, 1),
      stage("raw", 18_000, true, 2),
      stage("floodgate", 9600, true, 2),
      stage("bullmq", 12_000, true, 2),
      stage("floodgate", 10_400, true, 2),
      stage("floodgateAuthOn", 8700, true, 2),
      stage("floodgate", 9600, true, 2),
    ];
    const medians = (["floodgate", "floodgateAuthOn", "raw", "bullmq"] as const).map((key) =>
      targetMedians(key, stages),
    );
    expect(medians[0]).toMatchObject({
      target: "floodgate",
      stages: 7,
      failedStages: 0,
      acceptedRate: 9600,
    });
    expect(medians[0]?.cpuPerAcceptedUs).toEqual({ target: 80, redis: 30, loadGenerator: 10 });
    expect(ratioVerdicts(medians, stages, 2)).toEqual([
      // 10,000 / 16,000 and 10,000 / 18,000 (the reference's 10,400 before and 9,600 after each).
      expect.objectContaining({
        name: "floodgate / raw",
        ratio: 0.59,
        roundRatios: [0.625, 0.556],
        unsteady: [],
        steadyNeeded: 2,
        ratioOfMedians: 0.565,
        goal: 0.6,
        met: false,
        note: null,
      }),
      expect.objectContaining({
        name: "floodgate / bullmq",
        ratio: 0.917,
        roundRatios: [1, 0.833],
        ratioOfMedians: 0.873,
        met: false,
      }),
      expect.objectContaining({ name: "floodgate / compared checkout", ratio: null, met: null }),
      expect.objectContaining({
        name: "auth on / AUTH=off",
        ratio: 0.91,
        roundRatios: [0.95, 0.87],
        met: true,
      }),
    ]);
  });

  it("cancels a machine that slows down across a stage's neighbours", () => {
    // The reference ran 12,000/s, then auth on 10,000/s, then the reference 10,000/s: against the stage
    // before alone, 0.833; against the two around it, 0.909.
    const stages = [stage("floodgate", 12_000), stage("floodgateAuthOn", 10_000), stage("floodgate", 10_000)];
    expect(comparisonRatios(stages, "floodgateAuthOn", "floodgate").map((r) => r.toFixed(3))).toEqual([
      "0.909",
    ]);
  });

  it("is not met by medians taken from different hours of a drifting machine", () => {
    // A run on the 2-vCPU Xeon (20261129T194035Z), its stages put in turn: the peer's fast rounds came early,
    // the intake's late.
    const floodgate = [12_315, 12_681, 8762, 8990, 9223, 14_314, 14_119];
    const raw = [22_932, 25_799, 16_469, 16_312, 14_941, 25_009, 17_124];
    const stages = floodgate.flatMap((rate, i) => [
      stage("floodgate", rate, true, i + 1),
      stage("raw", raw[i]!, true, i + 1),
    ]);
    const medians = (["floodgate", "raw"] as const).map((key) => targetMedians(key, stages));
    const [verdict] = ratioVerdicts(medians, stages, 1);
    expect(verdict).toMatchObject({ ratio: 0.552, ratioOfMedians: 0.719, met: false });
    // Two comparisons straddle a jump of the reference (12,681 to 8,762 and 9,223 to 14,314), and the last raw
    // stage has a reference before it only: all three are set aside.
    expect(comparisonRatios(stages, "floodgate", "raw").map((r) => Number(r.toFixed(3)))).toEqual([
      0.545, 0.416, 0.539, 0.558, 0.788, 0.568, 0.825,
    ]);
    expect(verdict?.roundRatios).toEqual([0.545, 0.539, 0.558, 0.568]);
    expect(verdict?.unsteady).toEqual([
      { ratio: 0.416, references: [12_681, 8762] },
      { ratio: 0.788, references: [9223, 14_314] },
      { ratio: 0.825, references: [14_119] },
    ]);
  });

  it("calls two reference stages steady within 10 % of the lower, either way round", () => {
    expect(steadyReferences(10_000, 11_000)).toBe(true);
    expect(steadyReferences(11_000, 10_000)).toBe(true);
    expect(steadyReferences(10_000, 11_001)).toBe(false);
    expect(steadyReferences(15_081, 14_800)).toBe(true);
    expect(steadyReferences(14_800, 8764)).toBe(false);
  });

  it("calls a comparison steady only with live reference stages right before and right after it", () => {
    // Raw's reference after it accepted nothing: its ratio reaches the next live one, two stages away, and
    // is set aside (the machine could have moved unseen in between); bullmq's has a reference at one side only.
    const stages = [
      stage("floodgate", 10_000),
      stage("raw", 20_000),
      stage("floodgate", 0, false),
      stage("floodgate", 10_000),
      stage("bullmq", 5000),
    ];
    const medians = (["floodgate", "raw", "bullmq"] as const).map((key) => targetMedians(key, stages));
    const [raw, bullmq] = ratioVerdicts(medians, stages, 1);
    expect(raw).toMatchObject({ roundRatios: [], unsteady: [{ ratio: 0.5, references: [10_000, 10_000] }] });
    expect(bullmq).toMatchObject({ roundRatios: [], unsteady: [{ ratio: 2, references: [10_000] }] });
  });

  it("judges a goal on its steady comparisons only, and does not meet it with fewer than the rounds asked for", () => {
    // Round 1 steady (0.66); round 2's reference fell from 9,800 to 7,000 around raw (0.5 against their mean):
    // set aside, though it would have failed the goal, as a jump the other way would have passed it.
    const stages = [
      stage("floodgate", 10_000, true, 1),
      stage("raw", 15_000, true, 1),
      stage("floodgate", 9800, true, 1),
      stage("raw", 17_000, true, 2),
      stage("floodgate", 7000, true, 2),
    ];
    const medians = (["floodgate", "raw"] as const).map((key) => targetMedians(key, stages));
    const [one] = ratioVerdicts(medians, stages, 1);
    expect(one).toMatchObject({ ratio: 0.66, roundRatios: [0.66], met: true, note: null });
    expect(one?.unsteady).toEqual([{ ratio: 0.494, references: [9800, 7000] }]);
    const [two] = ratioVerdicts(medians, stages, 2);
    expect(two).toMatchObject({ ratio: 0.66, met: false, steadyNeeded: 2 });
    expect(two?.note).toMatch(/^1 steady comparison\(s\) of the 2 needed/);
    expect(steadyShortfall(stages, "raw", 2)).toBe(1);
    expect(steadyShortfall(stages, "raw", 1)).toBe(0);
    // A target with no stage yet lacks them all; a goal with a failed stage lacks none: no round would meet it.
    expect(steadyShortfall(stages, "bullmq", 3)).toBe(3);
    const dead = [...stages, stage("bullmq", 0, false), stage("floodgate", 7000)];
    expect(steadyShortfall(dead, "bullmq", 3)).toBe(0);
    expect(steadyShortfall(dead, "raw", 2)).toBe(1);
  });

  it("takes the one reference stage at either end of the run, and passes over a reference that accepted nothing", () => {
    const stages = [
      stage("floodgateAuthOn", 9000),
      stage("floodgate", 10_000),
      stage("raw", 20_000),
      stage("floodgate", 0, false),
      stage("bullmq", 5000),
    ];
    // Auth on has the reference after it only; raw has 10,000 before and a dead stage after, passed over; so
    // has bullmq, whose nearest live reference is two stages back.
    expect(comparisonRatios(stages, "floodgateAuthOn", "floodgate")).toEqual([0.9]);
    expect(comparisonRatios(stages, "floodgate", "raw")).toEqual([0.5]);
    expect(comparisonRatios(stages, "floodgate", "bullmq")).toEqual([2]);
  });

  it("counts a subject that accepted nothing as 0 over the reference, and gives it no ratio under it", () => {
    const stages = [stage("floodgate", 10_000), stage("floodgateAuthOn", 0, false), stage("raw", 0, false)];
    expect(comparisonRatios(stages, "floodgateAuthOn", "floodgate")).toEqual([0]);
    expect(comparisonRatios(stages, "floodgate", "raw")).toEqual([]);
  });

  it("gives no ratio to a stage with no reference stage in the run, and needs the reference on one side", () => {
    expect(comparisonRatios([stage("raw", 20_000)], "floodgate", "raw")).toEqual([]);
    expect(() => comparisonRatios([stage("raw", 20_000)], "raw", "bullmq")).toThrow(/floodgate on one side/);
  });

  it("holds this checkout's intake to 95 % of the compared checkout's", () => {
    const keep = (rate: number) => {
      const stages = [
        stage("floodgate", 10_000),
        stage("floodgateCompared", rate),
        stage("floodgate", 10_000),
      ];
      return ratioVerdicts(
        (["floodgate", "floodgateCompared"] as const).map((key) => targetMedians(key, stages)),
        stages,
        1,
      ).find((verdict) => verdict.name === "floodgate / compared checkout");
    };
    expect(keep(10_400)).toMatchObject({ ratio: 0.962, goal: 0.95, met: true });
    expect(keep(10_600)).toMatchObject({ ratio: 0.943, goal: 0.95, met: false });
  });

  it("does not call a goal met when a stage of either side failed, and says which goals did not run", () => {
    const stages = [
      stage("floodgate", 10_000, false),
      stage("floodgateAuthOn", 9500),
      stage("floodgate", 10_000),
    ];
    const medians = (["floodgate", "floodgateAuthOn"] as const).map((key) => targetMedians(key, stages));
    const [raw, bullmq, compared, auth] = ratioVerdicts(medians, stages, 1);
    expect(compared).toMatchObject({ met: null, note: "not run" });
    expect(raw).toMatchObject({ met: null, note: "not run" });
    expect(bullmq).toMatchObject({ met: null, note: "not run" });
    expect(auth).toMatchObject({ ratio: 0.95, met: false, note: "1 failed stage(s)" });
    // Short of steady comparisons too: both reasons.
    const [, , , short] = ratioVerdicts(medians, stages, 2);
    expect(short?.note).toBe(
      "1 failed stage(s); 1 steady comparison(s) of the 2 needed: the reference moved more than 10 % around the others",
    );
  });
});
