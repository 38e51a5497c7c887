// Panels over the stages of a --max search, one line per target: what each target accepted against what was
// offered, and its p50 and p99 response times at each offered rate.
import type { Panel, Series } from "../chart-model.ts";
import { COLOURS, targetColour } from "../chart-palette.ts";

export interface Stage {
  offered: number;
  accepted: number;
  p50Ms: number | null;
  p99Ms: number | null;
}

export interface TargetStages {
  name: string;
  stages: Stage[];
}

/** Several stages at one offered rate (a rerun) are drawn as they are; the line goes through them in x order. */
export function stagePanels(targets: readonly TargetStages[], unit: string): Panel[] {
  const offered = [...new Set(targets.flatMap((t) => t.stages.map((s) => s.offered)))].sort((a, b) => a - b);
  const acceptedSeries: Series[] = [
    {
      name: "offered",
      colour: COLOURS.offered,
      dashed: true,
      points: offered.map((rate) => ({ x: rate, y: rate })),
    },
    ...targets.map((target, i) => ({
      name: target.name,
      colour: targetColour(i),
      points: target.stages.map((s) => ({ x: s.offered, y: s.accepted })),
    })),
  ];
  const latencySeries: Series[] = targets.flatMap((target, i) => [
    {
      name: `${target.name} p50`,
      colour: targetColour(i),
      dashed: true,
      points: target.stages.map((s) => ({ x: s.offered, y: s.p50Ms })),
    },
    {
      name: `${target.name} p99`,
      colour: targetColour(i),
      points: target.stages.map((s) => ({ x: s.offered, y: s.p99Ms })),
    },
  ]);
  return [
    {
      title: "accepted per stage",
      xLabel: `offered (${unit}/s)`,
      yLabel: `accepted (${unit}/s)`,
      series: acceptedSeries,
    },
    {
      title: "response time per stage",
      xLabel: `offered (${unit}/s)`,
      yLabel: "response time (ms)",
      series: latencySeries.filter((s) => s.points.some((p) => p.y !== null)),
    },
  ];
}
