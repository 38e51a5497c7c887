// A result file's JSON to its chart's SVG: the head gives the title, the scenario picks the layout.
import type { Panel } from "./chart-model.ts";
import { renderPage } from "./chart-page.ts";
import { chartTitle, wrap } from "./chart-title.ts";
import { admissionTokensPanels } from "./layouts/admission-tokens-chart.ts";
import { couponDropPanels } from "./layouts/coupon-drop-chart.ts";
import { faultsPanels } from "./layouts/faults-chart.ts";
import { flashSalePanels, flashSaleTitleLines } from "./layouts/flash-sale-chart.ts";
import { hotProductPanels } from "./layouts/hot-product-chart.ts";
import { paymentsPanels, paymentsTitleLines } from "./layouts/payments-chart.ts";
import { ChartInputError, ResultNode } from "./result-node.ts";

interface Layout {
  panels(result: ResultNode): Panel[][];
  /** Lines for the title block under the head's, for a verdict a reader should see before any panel. */
  titleLines?(result: ResultNode): string[];
}

/** One layout per scenario; a new scenario's chart is one file in layouts/ and one entry here. */
const LAYOUTS: Record<string, Layout> = {
  payments: { panels: paymentsPanels, titleLines: paymentsTitleLines },
  "coupon-drop": { panels: couponDropPanels },
  "hot-product": { panels: hotProductPanels },
  "flash-sale": { panels: flashSalePanels, titleLines: flashSaleTitleLines },
  faults: { panels: faultsPanels },
  "admission-tokens": { panels: admissionTokensPanels },
};

/** `file` names the result in error messages. */
export function renderResultChart(json: unknown, file: string): string {
  const result = new ResultNode(file, json);
  if (!result.isObject()) throw result.missing("a result object");
  const scenario = result.string("scenario");
  const layout = LAYOUTS[scenario];
  if (!layout) {
    throw new ChartInputError(
      `${file}: no chart for scenario ${JSON.stringify(scenario)} (known: ${Object.keys(LAYOUTS).join(", ")})`,
    );
  }
  const { title, subtitle } = chartTitle(result);
  const { rows, titleLines } = bodyOf(layout, result);
  return renderPage({
    title,
    subtitle: [...subtitle, ...titleLines.flatMap((line) => wrap(line, 120))],
    rows,
  });
}

/** A run that failed before its first measured phase still gets its title block, which says why it failed. */
function bodyOf(layout: Layout, result: ResultNode): { rows: Panel[][]; titleLines: string[] } {
  try {
    return { rows: layout.panels(result), titleLines: layout.titleLines?.(result) ?? [] };
  } catch (error) {
    if (error instanceof ChartInputError && typeof result.at("error").value === "string") {
      return { rows: [], titleLines: [] };
    }
    throw error;
  }
}
