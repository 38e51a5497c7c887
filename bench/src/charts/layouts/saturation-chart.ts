// bench payments --max --generator wrk (payments/saturation/): each target saturated in a closed loop, round
// after round. The accepted/s of every target per round (and their median, which the goals compare), p50/p99
// per round, and the goals' ratios as lines of the title block.
import type { Panel, Series } from "../chart-model.ts";
import { targetColour } from "../chart-palette.ts";
import type { ResultNode } from "../result-node.ts";
import { lighter } from "./phase-bars.ts";

/** What marks a saturation result: its summary's `mode` (saturation-summary.ts). */
export const isSaturationResult = (result: ResultNode): boolean => result.at("mode").value === "saturation";

interface StageFigures {
  round: number;
  target: string;
  acceptedRate: number;
  p50Ms: number | null;
  p99Ms: number | null;
}

function readStages(result: ResultNode): StageFigures[] {
  return result.list("stages").map((stage) => ({
    round: stage.number("round"),
    target: stage.string("target"),
    acceptedRate: stage.number("acceptedRate"),
    p50Ms: stage.optionalNumber("latencyMs.p50"),
    p99Ms: stage.optionalNumber("latencyMs.p99"),
  }));
}

/** The targets in the result's order, named by their labels ("floodgate AUTH=off", "peer raw"). */
function readTargets(result: ResultNode): { key: string; label: string }[] {
  const targets = result.list("targets").map((t) => ({ key: t.string("key"), label: t.string("label") }));
  if (targets.length === 0) throw result.at("targets").missing("at least one target");
  return targets;
}

export function saturationPanels(result: ResultNode): Panel[][] {
  const targets = readTargets(result);
  const stages = readStages(result);
  const rounds = [...new Set(stages.map((s) => s.round))].sort((a, b) => a - b);
  const roundNames = rounds.map((round) => `round ${round}`);
  const medians = new Map(
    result.list("medians").map((m) => [m.string("target"), m.optionalNumber("acceptedRate")]),
  );
  /**
   * One bar per round where the target ran: the mean of its stages in that round (the AUTH=off reference runs
   * between every two other stages, so up to one more than there are other targets). A picture of the round,
   * not of the ratios: those take each other stage against the two reference stages around it only, one of
   * which can be the previous round's (saturation-verdict.ts).
   */
  const perRound = (key: string, pick: (stage: StageFigures) => number | null) =>
    rounds.flatMap((round, x) => {
      const values = stages
        .filter((stage) => stage.target === key && stage.round === round)
        .flatMap((stage) => {
          const value = pick(stage);
          return value === null ? [] : [value];
        });
      return values.length === 0 ? [] : [{ x, y: values.reduce((sum, v) => sum + v, 0) / values.length }];
    });
  const bars = (name: string, colour: string, points: Series["points"]): Series => ({
    name,
    colour,
    kind: "bars",
    points,
  });
  // Full-width rows: four targets' names (eight with p50/p99) need the legend room.
  return [
    [
      {
        title: "accepted per round, each target saturated in a closed loop",
        xLabel: "round",
        yLabel: "accepted (payments/s)",
        categories: [...roundNames, "median of the rounds"],
        series: targets.map((t, i) =>
          bars(t.label, targetColour(i), [
            ...perRound(t.key, (s) => s.acceptedRate),
            { x: rounds.length, y: medians.get(t.key) ?? null },
          ]),
        ),
      },
    ],
    [
      {
        title: "response time per round",
        xLabel: "round",
        yLabel: "response time (ms)",
        categories: roundNames,
        series: targets.flatMap((t, i) => [
          bars(
            `${t.label} p50`,
            lighter(targetColour(i)),
            perRound(t.key, (s) => s.p50Ms),
          ),
          bars(
            `${t.label} p99`,
            targetColour(i),
            perRound(t.key, (s) => s.p99Ms),
          ),
        ]),
      },
    ],
  ];
}

/** How the load was made, then "floodgate / raw 0.381 (goal >= 0.6): not met", one per goal; then any stage
 * that failed, which fails its goals whatever the ratio says. */
export function saturationTitleLines(result: ResultNode): string[] {
  const load = result.at("loadGenerator").value;
  const labels = new Map(readTargets(result).map((t) => [t.key, t.label]));
  const verdicts = result.list("verdicts").map((verdict) => {
    const name = verdict.string("name");
    const goal = `(goal >= ${verdict.number("goal")})`;
    const met = verdict.at("met").value;
    if (typeof met !== "boolean") return `${name}: not run ${goal}`;
    const note = verdict.at("note").value;
    const state = met ? "met" : `not met${typeof note === "string" ? ` (${note})` : ""}`;
    return `${name} ${verdict.optionalNumber("ratio") ?? "n/a"} ${goal}: ${state}`;
  });
  const failed = result
    .list("stages")
    .filter((stage) => stage.at("passed").value === false)
    .map(
      (stage) =>
        `round ${stage.number("round")} #${stage.number("position") + 1}, ${labels.get(stage.string("target")) ?? stage.string("target")} ` +
        `FAILED: ${String(stage.at("failure").value)}`,
    );
  return [...(typeof load === "string" ? [`load: ${load}`] : []), ...verdicts, ...failed];
}
