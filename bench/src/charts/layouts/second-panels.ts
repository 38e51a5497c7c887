// Panels over the seconds of one load, one line per target: accepted per second and, where the result has
// them, p50 and p99 of each second's responses.
import type { Panel, Series } from "../chart-model.ts";
import { targetColour } from "../chart-palette.ts";
import type { ResultNode } from "../result-node.ts";

export interface TargetSeconds {
  name: string;
  accepted: (number | null)[];
  /** Absent in results written before the per-second series were recorded. */
  p50Ms: (number | null)[] | null;
  p99Ms: (number | null)[] | null;
}

/** A load's `perSecond` (harness/per-second-series.ts), or, in older results, its 2xx per second alone. */
export function readSeconds(name: string, load: ResultNode, olderAcceptedPath: string): TargetSeconds {
  const perSecond = load.at("perSecond");
  if (perSecond.present) {
    return {
      name,
      accepted: perSecond.numbers("accepted"),
      p50Ms: perSecond.numbers("p50Ms"),
      p99Ms: perSecond.numbers("p99Ms"),
    };
  }
  return { name, accepted: load.numbers(olderAcceptedPath), p50Ms: null, p99Ms: null };
}

const points = (values: readonly (number | null)[]) => values.map((y, x) => ({ x, y }));

export function secondPanels(targets: readonly TargetSeconds[], unit: string, what: string): Panel[] {
  const accepted: Panel = {
    title: `accepted per second, ${what}`,
    xLabel: "second of the load (s)",
    yLabel: `accepted (${unit}/s)`,
    series: targets.map((target, i) => ({
      name: target.name,
      colour: targetColour(i),
      points: points(target.accepted),
    })),
  };
  const latency: Series[] = targets.flatMap((target, i) =>
    target.p50Ms && target.p99Ms
      ? [
          { name: `${target.name} p50`, colour: targetColour(i), dashed: true, points: points(target.p50Ms) },
          { name: `${target.name} p99`, colour: targetColour(i), points: points(target.p99Ms) },
        ]
      : [],
  );
  if (latency.length === 0) return [accepted];
  return [
    accepted,
    {
      title: `response time per second, ${what}`,
      xLabel: "second of the load (s)",
      yLabel: "response time (ms)",
      series: latency,
    },
  ];
}
