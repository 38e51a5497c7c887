// One panel drawn into its box: title, legend, grid, axes with their labels and units, bands, then the series.
import type { Panel, Series } from "./chart-model.ts";
import { COLOURS } from "./chart-palette.ts";
import { formatTick, type LinearScale, linearScale } from "./chart-scale.ts";
import { element, text } from "./svg-markup.ts";

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

const MARGIN = { left: 52, right: 12, top: 44, bottom: 40 };
const FONT = { "font-size": 11, fill: COLOURS.text };

export function renderPanel(panel: Panel, box: Box): string {
  const plot = {
    left: box.x + MARGIN.left,
    right: box.x + box.width - MARGIN.right,
    top: box.y + MARGIN.top,
    bottom: box.y + box.height - MARGIN.bottom,
  };
  const x = xScale(panel, plot);
  const y = linearScale(0, yMax(panel.series), [plot.bottom, plot.top]);
  return element("g", { class: "panel" }, [
    text(box.x + box.width / 2, box.y + 14, panel.title, {
      ...FONT,
      "font-size": 12,
      "font-weight": "bold",
      "text-anchor": "middle",
    }),
    legend(panel.series, box),
    ...(panel.bands ?? []).map((band) =>
      element("rect", {
        x: x.at(band.from),
        y: plot.top,
        width: Math.max(1, x.at(band.to) - x.at(band.from)),
        height: plot.bottom - plot.top,
        fill: COLOURS.band,
      }),
    ),
    ...(panel.bands ?? []).map((band) =>
      text(x.at(band.from) + 3, plot.top + 10, band.label, {
        ...FONT,
        "font-size": 9,
        fill: COLOURS.refused,
      }),
    ),
    yAxis(y, plot, panel.yLabel, box),
    xAxis(x, panel, plot),
    ...panel.series.map((series, index) => renderSeries(series, index, panel, x, y)),
  ]);
}

interface Plot {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** Categories get one slot each (x = index, drawn at the slot's middle); numbers a linear scale from 0 when
 * they start near it. */
function xScale(panel: Panel, plot: Plot): LinearScale {
  if (panel.categories) {
    const count = Math.max(1, panel.categories.length);
    return {
      min: -0.5,
      max: count - 0.5,
      ticks: panel.categories.map((_, i) => i),
      at: (value) => plot.left + ((value + 0.5) / count) * (plot.right - plot.left),
    };
  }
  const xs = panel.series.flatMap((series) => series.points.map((point) => point.x));
  const bands = (panel.bands ?? []).flatMap((band) => [band.from, band.to]);
  const all = [...xs, ...bands];
  const low = Math.min(...all);
  const high = Math.max(...all);
  return linearScale(low >= 0 && low <= (high - low) / 4 ? 0 : low, high, [plot.left, plot.right], 8);
}

function yMax(series: readonly Series[]): number {
  const ys = series.flatMap((s) => s.points.map((p) => p.y)).filter((y): y is number => y !== null);
  return ys.length === 0 ? 1 : Math.max(...ys);
}

function yAxis(y: LinearScale, plot: Plot, label: string, box: Box): string {
  return element("g", { class: "y-axis" }, [
    ...y.ticks.map((tick) =>
      element("line", {
        x1: plot.left,
        x2: plot.right,
        y1: y.at(tick),
        y2: y.at(tick),
        stroke: COLOURS.grid,
      }),
    ),
    ...y.ticks.map((tick) =>
      text(plot.left - 4, y.at(tick) + 3, formatTick(tick), {
        ...FONT,
        "font-size": 10,
        "text-anchor": "end",
      }),
    ),
    element("line", { x1: plot.left, x2: plot.left, y1: plot.top, y2: plot.bottom, stroke: COLOURS.axis }),
    text(0, 0, label, {
      ...FONT,
      "text-anchor": "middle",
      transform: `translate(${box.x + 12} ${(plot.top + plot.bottom) / 2}) rotate(-90)`,
    }),
  ]);
}

function xAxis(x: LinearScale, panel: Panel, plot: Plot): string {
  const label = (tick: number) => panel.categories?.[tick] ?? formatTick(tick);
  return element("g", { class: "x-axis" }, [
    element("line", {
      x1: plot.left,
      x2: plot.right,
      y1: plot.bottom,
      y2: plot.bottom,
      stroke: COLOURS.axis,
    }),
    ...x.ticks.map((tick) =>
      text(x.at(tick), plot.bottom + 13, label(tick), { ...FONT, "font-size": 10, "text-anchor": "middle" }),
    ),
    text((plot.left + plot.right) / 2, plot.bottom + 30, panel.xLabel, { ...FONT, "text-anchor": "middle" }),
  ]);
}

/** One row of swatches under the title, wrapping to a second when the names do not fit. */
function legend(series: readonly Series[], box: Box): string {
  const items: string[] = [];
  let cx = box.x + MARGIN.left;
  let cy = box.y + 30;
  for (const s of series) {
    const width = 22 + s.name.length * 6.2 + 12;
    if (cx + width > box.x + box.width && cx > box.x + MARGIN.left) {
      cx = box.x + MARGIN.left;
      cy += 12;
    }
    items.push(
      s.kind === "bars"
        ? element("rect", { x: cx, y: cy - 7, width: 16, height: 8, fill: s.colour })
        : element("line", {
            x1: cx,
            x2: cx + 16,
            y1: cy - 3,
            y2: cy - 3,
            stroke: s.colour,
            "stroke-width": 2,
            "stroke-dasharray": s.dashed ? "4 3" : undefined,
          }),
      text(cx + 20, cy, s.name, { ...FONT, "font-size": 10 }),
    );
    cx += width;
  }
  return element("g", { class: "legend" }, items);
}

function renderSeries(series: Series, index: number, panel: Panel, x: LinearScale, y: LinearScale): string {
  if (series.kind === "bars") {
    const bars = panel.series.filter((s) => s.kind === "bars");
    const position = bars.indexOf(series);
    const slot = Math.abs(x.at(1) - x.at(0)) * 0.8;
    const width = slot / Math.max(1, bars.length);
    return element(
      "g",
      { class: "series", "data-series": series.name, fill: series.colour },
      series.points
        .filter((point): point is { x: number; y: number } => point.y !== null)
        .map((point) =>
          element("rect", {
            x: x.at(point.x) - slot / 2 + position * width,
            y: y.at(point.y),
            width: Math.max(1, width - 1),
            height: Math.max(0, y.at(0) - y.at(point.y)),
          }),
        ),
    );
  }
  return element("g", { class: "series", "data-series": series.name, "data-index": index }, [
    element("path", {
      d: linePath(series, x, y),
      fill: "none",
      stroke: series.colour,
      "stroke-width": 2,
      "stroke-dasharray": series.dashed ? "5 3" : undefined,
    }),
    // A lone point of a line has no segment to show it: a dot where there are few points.
    ...(series.points.length <= 24
      ? series.points
          .filter((point): point is { x: number; y: number } => point.y !== null)
          .map((point) =>
            element("circle", { cx: x.at(point.x), cy: y.at(point.y), r: 2.5, fill: series.colour }),
          )
      : []),
  ]);
}

/** M/L commands in x order; a null y lifts the pen. */
function linePath(series: Series, x: LinearScale, y: LinearScale): string {
  const commands: string[] = [];
  let penDown = false;
  for (const point of [...series.points].sort((a, b) => a.x - b.x)) {
    if (point.y === null) {
      penDown = false;
      continue;
    }
    commands.push(`${penDown ? "L" : "M"}${fmt(x.at(point.x))} ${fmt(y.at(point.y))}`);
    penDown = true;
  }
  return commands.join(" ") || "M0 0";
}

const fmt = (value: number): string => String(Math.round(value * 10) / 10);
