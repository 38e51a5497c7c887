// A whole chart as one SVG document: a fixed 800 px width (GitHub scales nothing up), a white card so the
// dark theme keeps it readable, the title block, then the rows of panels.
import type { ChartPage } from "./chart-model.ts";
import { COLOURS } from "./chart-palette.ts";
import { renderPanel } from "./panel-render.ts";
import { element, escapeXml, text } from "./svg-markup.ts";

export const PAGE_WIDTH = 800;
const ROW_HEIGHT = 260;
const GAP = 16;

export function renderPage(page: ChartPage): string {
  const titleHeight = 30 + page.subtitle.length * 15;
  const height = titleHeight + page.rows.length * (ROW_HEIGHT + GAP) + 8;
  const rows = page.rows.flatMap((panels, rowIndex) => {
    const width = (PAGE_WIDTH - GAP * (panels.length + 1)) / panels.length;
    return panels.map((panel, i) =>
      renderPanel(panel, {
        x: GAP + i * (width + GAP),
        y: titleHeight + rowIndex * (ROW_HEIGHT + GAP),
        width,
        height: ROW_HEIGHT,
      }),
    );
  });
  return `${element(
    "svg",
    {
      xmlns: "http://www.w3.org/2000/svg",
      width: PAGE_WIDTH,
      height,
      viewBox: `0 0 ${PAGE_WIDTH} ${height}`,
      "font-family": "-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif",
    },
    [
      element("title", {}, escapeXml(page.title)),
      element("rect", { x: 0, y: 0, width: PAGE_WIDTH, height, fill: "#ffffff" }),
      text(GAP, 20, page.title, { "font-size": 14, "font-weight": "bold", fill: COLOURS.text }),
      ...page.subtitle.map((line, i) =>
        text(GAP, 38 + i * 15, line, { "font-size": 11, fill: COLOURS.axis }),
      ),
      ...rows,
    ],
  )}\n`;
}
