// bench flash-sale --compare-checkout: the two checkouts' sales side by side, round by round (and the medians
// the ratio compares): joins answered/s, join and push p99, live positions. The verdict and any failed sale are
// lines of the title block.
import type { Panel, Series } from "../chart-model.ts";
import { targetColour } from "../chart-palette.ts";
import type { ResultNode } from "../result-node.ts";

/** What marks a comparison: its summary's `mode` (flash-sale-comparison-summary.ts). */
export const isFlashSaleComparison = (result: ResultNode): boolean =>
  result.at("mode").value === "comparison";

function readSides(result: ResultNode): { key: string; label: string }[] {
  const sides = result.list("sides").map((s) => ({ key: s.string("key"), label: s.string("label") }));
  if (sides.length === 0) throw result.at("sides").missing("the two sides");
  return sides;
}

export function flashSaleComparisonPanels(result: ResultNode): Panel[][] {
  const sides = readSides(result);
  const sales = result.list("sales").map((sale) => ({
    round: sale.number("round"),
    side: sale.string("side"),
    figures: sale.at("figures"),
  }));
  const rounds = [...new Set(sales.map((s) => s.round))].sort((a, b) => a - b);
  const roundNames = rounds.map((round) => `round ${round}`);
  const medians = new Map(result.list("medians").map((m) => [m.string("side"), m]));
  /** One bar per side and round, then (withMedian) the side's median in a slot of its own. */
  const bySide = (path: string, withMedian: boolean): Series[] =>
    sides.map((side, i) => ({
      name: side.label,
      colour: targetColour(i),
      kind: "bars",
      points: [
        ...sales
          .filter((sale) => sale.side === side.key)
          .map((sale) => ({ x: rounds.indexOf(sale.round), y: sale.figures.optionalNumber(path) })),
        ...(withMedian ? [{ x: rounds.length, y: medians.get(side.key)?.optionalNumber(path) ?? null }] : []),
      ],
    }));
  const perRound = (title: string, yLabel: string, path: string): Panel => ({
    title,
    xLabel: "round",
    yLabel,
    categories: [...roundNames, "median"],
    series: bySide(path, true),
  });
  return [
    [
      perRound(
        "joins answered per sale, one system at a time",
        "joins answered (users/s)",
        "joinsAnsweredPerS",
      ),
    ],
    [
      perRound("join p99", "time (ms)", "joinP99Ms"),
      perRound("push p99 (admission -> message)", "time (ms)", "pushP99Ms"),
    ],
    [perRound("live positions (sockets that saw their place)", "sockets", "livePositions")],
  ];
}

/** "joins answered/s, this / other 0.97 (goal >= 0.95): met", the sides' checkouts, then any failed sale. */
export function flashSaleComparisonTitleLines(result: ResultNode): string[] {
  const verdict = result.at("verdict");
  const lines = readSides(result).map(
    (side, i) =>
      `${i === 0 ? "this" : "against"}: ${side.label} (${String(result.at(`sides.${i}.checkout`).value)})`,
  );
  if (verdict.isObject()) {
    const note = verdict.at("note").value;
    const met = verdict.at("met").value === true;
    lines.push(
      `${verdict.string("name")} ${verdict.optionalNumber("ratio") ?? "n/a"} (goal >= ${verdict.number("goal")}): ` +
        (met ? "met" : `not met${typeof note === "string" ? ` (${note})` : ""}`),
    );
  }
  for (const sale of result.list("sales")) {
    const audits = sale.list("failedAudits").map((a) => String(a.value));
    const error = sale.at("error").value;
    if (typeof error === "string" || audits.length > 0) {
      lines.push(
        `round ${sale.number("round")}, ${sale.string("side")} FAILED: ${typeof error === "string" ? error : audits.join("; ")}`,
      );
    }
  }
  return lines;
}
