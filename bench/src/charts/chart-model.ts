// What a chart is made of, as data: a page of panels, each with its axes and series. The scenario layouts
// (layouts/) build it from a result; chart-page.ts draws it.

export interface Point {
  x: number;
  /** null leaves a gap in a line (no answer that second). */
  y: number | null;
}

export interface Series {
  name: string;
  colour: string;
  points: Point[];
  /** Lines by default; bars suit categories (x is the category's index). */
  kind?: "line" | "bars";
  dashed?: boolean;
}

export interface Panel {
  title: string;
  /** The axis label, with its unit: "offered (payments/s)", "second of the run". */
  xLabel: string;
  yLabel: string;
  /** With categories, x is an index into them and each is one labelled slot. */
  categories?: string[];
  series: Series[];
  /** Shaded spans of x, e.g. the seconds a fault lasted. */
  bands?: { from: number; to: number; label: string }[];
}

export interface ChartPage {
  title: string;
  /** Lines under the title: commit, machine, settings. */
  subtitle: string[];
  /** Each row holds one or two panels side by side. */
  rows: Panel[][];
}
