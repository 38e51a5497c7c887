// A result file's JSON to its chart's SVG: the head gives the title, the scenario picks the layout.
import type { Panel } from "./chart-model.ts";
import { renderPage } from "./chart-page.ts";
import { chartTitle } from "./chart-title.ts";
import { couponDropPanels } from "./layouts/coupon-drop-chart.ts";
import { faultsPanels } from "./layouts/faults-chart.ts";
import { flashSalePanels } from "./layouts/flash-sale-chart.ts";
import { hotProductPanels } from "./layouts/hot-product-chart.ts";
import { paymentsPanels } from "./layouts/payments-chart.ts";
import { ChartInputError, ResultNode } from "./result-node.ts";

/** One layout per scenario; a new scenario's chart is one file in layouts/ and one entry here. */
const LAYOUTS: Record<string, (result: ResultNode) => Panel[][]> = {
  payments: paymentsPanels,
  "coupon-drop": couponDropPanels,
  "hot-product": hotProductPanels,
  "flash-sale": flashSalePanels,
  faults: faultsPanels,
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
  return renderPage({ ...chartTitle(result), rows: rowsOf(layout, result) });
}

/** A run that failed before its first measured phase still gets its title block, which says why it failed. */
function rowsOf(layout: (result: ResultNode) => Panel[][], result: ResultNode): Panel[][] {
  try {
    return layout(result);
  } catch (error) {
    if (error instanceof ChartInputError && typeof result.at("error").value === "string") return [];
    throw error;
  }
}
