// The saturation comparison's rounds: the planned ones, then extra rounds of the targets whose comparisons the
// reference's jumps left unsteady, up to as many rounds again. Stages here are numbers a test chooses, standing
// in for wrk's: what is under test is which stages run, not what they measure.
import { describe, expect, it } from "vitest";
import type { PlannedStage } from "../src/payments/saturation/round-order.ts";
import type { TargetKey } from "../src/payments/saturation/saturation-stage.ts";
import { ratioVerdicts, targetMedians } from "../src/payments/saturation/saturation-verdict.ts";
import { runSteadyRounds } from "../src/payments/saturation/steady-rounds.ts";
import { saturationStage } from "./support/saturation-stage-fixture.ts";

interface Target {
  key: TargetKey;
  label: string;
}

const reference: Target = { key: "floodgate", label: "floodgate AUTH=off" };
const raw: Target = { key: "raw", label: "peer raw" };
const bullmq: Target = { key: "bullmq", label: "peer bullmq" };

/**
 * Runs the rounds with each target's rates taken in turn from `rates` (the reference's too), and returns the
 * stages run as `round:target` and the log lines.
 */
async function run(rounds: number, others: Target[], rates: Partial<Record<TargetKey, number[]>>) {
  const lines: string[] = [];
  const next = (key: TargetKey) => {
    const queue = rates[key];
    if (queue === undefined || queue.length === 0) throw new Error(`no rate left for ${key}`);
    return queue.length === 1 ? queue[0]! : queue.shift()!;
  };
  const stages = await runSteadyRounds({
    reference,
    others,
    rounds,
    runStage: async ({ round, position, target }: PlannedStage<Target>) =>
      saturationStage(target.key, next(target.key), { round, position }),
    log: (line) => lines.push(line),
  });
  return { stages, plan: stages.map((s) => `${s.round}:${s.target}`), lines };
}

describe("runSteadyRounds", () => {
  it("runs the planned rounds only when every comparison was steady", async () => {
    const { plan, lines } = await run(2, [raw, bullmq], {
      floodgate: [10_000, 10_200, 9900, 10_100],
      raw: [16_000],
      bullmq: [8000],
    });
    expect(plan).toEqual([
      "1:floodgate",
      "1:raw",
      "1:floodgate",
      "1:bullmq",
      "1:floodgate",
      "2:bullmq",
      "2:floodgate",
      "2:raw",
      "2:floodgate",
    ]);
    expect(lines).toEqual([]);
  });

  it("adds a round of the target whose comparison the reference's jump left unsteady, which then counts", async () => {
    // The reference falls from 10,000 to 7,000 around raw's second stage, then holds at 7,000.
    const { stages, plan, lines } = await run(2, [raw, bullmq], {
      floodgate: [10_000, 10_100, 9900, 10_000, 7000, 7000],
      raw: [16_000, 15_000, 11_000],
      bullmq: [8000],
    });
    expect(plan.slice(9)).toEqual(["3:floodgate", "3:raw", "3:floodgate"]);
    expect(lines).toEqual([
      "round 3 (extra): steady comparisons peer raw 1 short of 2 (the AUTH=off stages around the others were more than 10 % apart)",
    ]);
    const medians = (["floodgate", "raw", "bullmq"] as const).map((key) => targetMedians(key, stages));
    const [rawVerdict] = ratioVerdicts(medians, stages, 2);
    expect(rawVerdict).toMatchObject({ roundRatios: [0.628, 0.636], met: true });
    expect(rawVerdict?.unsteady).toEqual([{ ratio: 0.567, references: [10_000, 7000] }]);
  });

  it("stops after as many extra rounds as planned ones, leaving the goal short and not met", async () => {
    // The reference jumps between 10,000 and 7,000 at every stage: no comparison is ever steady.
    const { stages, plan, lines } = await run(2, [raw], {
      floodgate: [10_000, 7000, 10_000, 7000, 10_000, 7000, 10_000],
      raw: [14_000],
    });
    expect(plan).toEqual([
      "1:floodgate",
      "1:raw",
      "1:floodgate",
      "2:raw",
      "2:floodgate",
      "3:floodgate",
      "3:raw",
      "3:floodgate",
      "4:floodgate",
      "4:raw",
      "4:floodgate",
    ]);
    expect(lines).toHaveLength(2);
    const medians = (["floodgate", "raw"] as const).map((key) => targetMedians(key, stages));
    const [rawVerdict] = ratioVerdicts(medians, stages, 2);
    expect(rawVerdict).toMatchObject({ ratio: null, roundRatios: [], met: false });
    expect(rawVerdict?.unsteady).toHaveLength(4);
    expect(rawVerdict?.note).toMatch(/^0 steady comparison\(s\) of the 2 needed/);
  });

  it("adds rounds for each target while it is short, dropping one once it has its steady comparisons", async () => {
    // Planned: the reference jumps around each peer's first stage. Round 3: raw's comparison holds, bullmq's
    // meets another jump. Round 4: bullmq alone, and it holds.
    const { plan, lines } = await run(2, [raw, bullmq], {
      floodgate: [10_000, 7000, 10_000, 10_000, 10_000, 10_000, 10_000, 7000, 10_000],
      raw: [16_000],
      bullmq: [8000],
    });
    expect(plan).toEqual([
      "1:floodgate",
      "1:raw",
      "1:floodgate",
      "1:bullmq",
      "1:floodgate",
      "2:bullmq",
      "2:floodgate",
      "2:raw",
      "2:floodgate",
      "3:floodgate",
      "3:raw",
      "3:floodgate",
      "3:bullmq",
      "3:floodgate",
      "4:floodgate",
      "4:bullmq",
      "4:floodgate",
    ]);
    expect(lines.map((line) => line.replace(/ \(the AUTH=off .*\)$/, ""))).toEqual([
      "round 3 (extra): steady comparisons peer raw 1 short of 2, peer bullmq 1 short of 2",
      "round 4 (extra): steady comparisons peer bullmq 1 short of 2",
    ]);
  });

  it("gives no extra round to a target whose stage failed: its goal is not met whatever follows", async () => {
    const { plan, lines } = await run(2, [raw, bullmq], {
      floodgate: [10_000, 7000, 10_000, 7000, 10_000],
      raw: [16_000],
      bullmq: [0],
    });
    // Raw's comparisons were all unsteady: it gets the extra rounds; the dead bullmq none.
    expect(plan.slice(9).every((entry) => !entry.endsWith("bullmq"))).toBe(true);
    expect(lines.every((line) => !line.includes("bullmq"))).toBe(true);
    expect(lines.length).toBeGreaterThan(0);
  });
});
