// Bars for results that hold one figure per phase and no series over time (older results, single loads):
// a rate per phase and target, and p50/p99 per phase and target.
import type { Panel, Series } from "../chart-model.ts";
import { targetColour } from "../chart-palette.ts";

export interface PhaseFigures {
  phase: string;
  rate: number | null;
  p50Ms: number | null;
  p99Ms: number | null;
}

export interface TargetPhaseFigures {
  name: string;
  phases: PhaseFigures[];
}

/** `latency` names what the p50/p99 measure when it is not the response time (a drain's end-to-end time). */
export function phaseBarPanels(
  targets: readonly TargetPhaseFigures[],
  rateLabel: string,
  latency = { title: "response time per phase", yLabel: "response time (ms)" },
): Panel[] {
  const categories = [...new Set(targets.flatMap((t) => t.phases.map((p) => p.phase)))];
  const bars = (
    name: string,
    colour: string,
    target: TargetPhaseFigures,
    pick: (p: PhaseFigures) => number | null,
  ): Series => ({
    name,
    colour,
    kind: "bars",
    points: target.phases.map((p) => ({ x: categories.indexOf(p.phase), y: pick(p) })),
  });
  return [
    {
      title: "rate per phase",
      xLabel: "phase",
      yLabel: rateLabel,
      categories,
      series: targets.map((t, i) => bars(t.name, targetColour(i), t, (p) => p.rate)),
    },
    {
      title: latency.title,
      xLabel: "phase",
      yLabel: latency.yLabel,
      categories,
      series: targets.flatMap((t, i) => [
        bars(`${t.name} p50`, lighter(targetColour(i)), t, (p) => p.p50Ms),
        bars(`${t.name} p99`, targetColour(i), t, (p) => p.p99Ms),
      ]),
    },
  ];
}

/** The colour mixed halfway to white: a p50 bar beside its target's p99. */
export function lighter(colour: string): string {
  const channel = (i: number) => Math.round((Number.parseInt(colour.slice(i, i + 2), 16) + 255) / 2);
  return `#${[1, 3, 5].map((i) => channel(i).toString(16).padStart(2, "0")).join("")}`;
}
