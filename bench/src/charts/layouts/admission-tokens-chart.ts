// bench admission-tokens: guarded payments/s of each token kind in each round (never-seen HS256, never-seen
// ES256, repeated ES256: the three alternate), and the medians the verdict compares against 90 % of HS256's.
import type { Panel } from "../chart-model.ts";
import { targetColour } from "../chart-palette.ts";
import type { ResultNode } from "../result-node.ts";

const TARGETS = [
  { key: "hs256Once", name: "HS256, each token once" },
  { key: "es256Once", name: "ES256, each token once" },
  { key: "es256Repeated", name: "ES256, repeated" },
] as const;

export function admissionTokensPanels(result: ResultNode): Panel[][] {
  const rounds = result.list("rounds");
  if (rounds.length === 0) throw result.missing("the rounds");
  const categories = rounds.map((_, i) => `round ${i + 1}`);
  const perRound: Panel = {
    title: "guarded payments per second, each round",
    xLabel: "round",
    yLabel: "guarded payments (per s)",
    categories,
    series: TARGETS.map((target, i) => ({
      name: target.name,
      colour: targetColour(i),
      kind: "bars" as const,
      points: rounds.map((round, x) => ({ x, y: round.optionalNumber(`${target.key}.perSecond`) })),
    })),
  };
  const medians: Panel = {
    title: "median over the rounds",
    xLabel: "token kind",
    yLabel: "guarded payments (per s)",
    categories: ["median"],
    series: TARGETS.map((target, i) => ({
      name: target.name,
      colour: targetColour(i),
      kind: "bars" as const,
      points: [{ x: 0, y: result.optionalNumber(`medianPerSecond.${target.key}`) }],
    })),
  };
  return [[perRound, medians]];
}
