// bench flash-sale: the crowd joins the waiting room, is admitted at the room's rate, hears of it (socket push
// or poll) and pays. One figure per step: the rates, and p50/p99 of each step's time.
// A --compare-checkout run is a comparison of another shape: flash-sale-comparison-chart.ts draws it.
import type { Panel } from "../chart-model.ts";
import { COLOURS } from "../chart-palette.ts";
import type { ResultNode } from "../result-node.ts";
import {
  flashSaleComparisonPanels,
  flashSaleComparisonTitleLines,
  isFlashSaleComparison,
} from "./flash-sale-comparison-chart.ts";
import { lighter } from "./phase-bars.ts";

const STEPS: { label: string; path: string }[] = [
  { label: "join", path: "joins.latencyMs" },
  { label: "socket handshake", path: "socketHandshakeMs" },
  { label: "push after admit", path: "pushDelayMs" },
  { label: "poll discovery", path: "pollDiscoveryMs" },
  { label: "payment", path: "payments.latencyMs" },
  { label: "end to end", path: "delivery.endToEndMs" },
];

export function flashSalePanels(result: ResultNode): Panel[][] {
  if (isFlashSaleComparison(result)) return flashSaleComparisonPanels(result);
  const sale = result.at("sale");
  if (!sale.isObject()) throw sale.missing("the sale's figures");
  const admission = sale.at("admission");
  const admittedSeconds = admission.optionalNumber("seconds");
  const rates = [
    { label: "joins offered", y: sale.optionalNumber("joins.offeredRate") },
    { label: "joins answered", y: sale.optionalNumber("joins.answeredRate") },
    { label: "admit setting", y: admission.optionalNumber("admitPerSecond") },
    {
      label: "admitted",
      y: admittedSeconds ? Math.round(admission.number("admitted") / admittedSeconds) : null,
    },
  ];
  const steps = STEPS.filter((step) => sale.at(step.path).present);
  return [
    [
      {
        title: "the waiting room's rates",
        xLabel: "step",
        yLabel: "users/s",
        categories: rates.map((r) => r.label),
        series: [
          {
            name: "users/s",
            colour: COLOURS.accepted,
            kind: "bars",
            points: rates.map((r, x) => ({ x, y: r.y })),
          },
        ],
      },
    ],
    [
      {
        title: "time per step",
        xLabel: "step",
        yLabel: "time (ms)",
        categories: steps.map((s) => s.label),
        series: [
          {
            name: "p50",
            colour: lighter(COLOURS.accepted),
            kind: "bars",
            points: steps.map((s, x) => ({ x, y: sale.optionalNumber(`${s.path}.p50`) })),
          },
          {
            name: "p99",
            colour: COLOURS.accepted,
            kind: "bars",
            points: steps.map((s, x) => ({ x, y: sale.optionalNumber(`${s.path}.p99`) })),
          },
        ],
      },
    ],
  ];
}

export const flashSaleTitleLines = (result: ResultNode): string[] =>
  isFlashSaleComparison(result) ? flashSaleComparisonTitleLines(result) : [];
