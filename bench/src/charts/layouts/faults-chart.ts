// bench faults: the sustainable-rate search, then one panel per fault with the shop clients' answers second by
// second and the fault's seconds shaded, so a reader sees the dip, the refusals and the catch-up.
import type { Panel, Series } from "../chart-model.ts";
import { COLOURS } from "../chart-palette.ts";
import type { ResultNode } from "../result-node.ts";

export function faultsPanels(result: ResultNode): Panel[][] {
  const rows: Panel[][] = [];
  if (result.at("sustainable.steps").present) rows.push(sustainablePanels(result.list("sustainable.steps")));
  const faults = result.list("faults");
  if (faults.length === 0) throw result.at("faults").missing("at least one fault");
  const panels = faults.flatMap((fault) => faultPanels(fault));
  for (let i = 0; i < panels.length; i += 2) rows.push(panels.slice(i, i + 2));
  return rows;
}

function sustainablePanels(steps: ResultNode[]): Panel[] {
  const sorted = steps.map((step) => ({
    x: step.number("targetRate"),
    accepted: step.number("acceptedRate"),
    p99: step.optionalNumber("p99Ms"),
  }));
  return [
    {
      title: "sustainable-rate search (2 s steps)",
      xLabel: "target (payments/s)",
      yLabel: "accepted (payments/s)",
      series: [
        {
          name: "target",
          colour: COLOURS.offered,
          dashed: true,
          points: sorted.map((s) => ({ x: s.x, y: s.x })),
        },
        {
          name: "accepted",
          colour: COLOURS.accepted,
          points: sorted.map((s) => ({ x: s.x, y: s.accepted })),
        },
      ],
    },
    {
      title: "sustainable-rate search: p99",
      xLabel: "target (payments/s)",
      yLabel: "response time (ms)",
      series: [{ name: "p99", colour: COLOURS.accepted, points: sorted.map((s) => ({ x: s.x, y: s.p99 })) }],
    },
  ];
}

/** The fault's answers per second; its response times too where the timeline has them; the overload's burst. */
function faultPanels(fault: ResultNode): Panel[] {
  const name = fault.string("name");
  const timeline = fault.list("timeline");
  const band = [
    { from: fault.number("faultStartSecond"), to: fault.number("faultEndSecond"), label: "fault" },
  ];
  const column = (key: string) =>
    timeline.map((second) => ({ x: second.number("second"), y: second.optionalNumber(key) }));
  const panels: Panel[] = [
    {
      title: `${name}: shop clients' answers`,
      xLabel: "second of the phase (s)",
      yLabel: "answers (per s)",
      bands: band,
      series: [
        { name: "offered", colour: COLOURS.offered, dashed: true, points: column("offered") },
        { name: "2xx accepted", colour: COLOURS.accepted, points: column("accepted") },
        { name: "5xx", colour: COLOURS.refused, points: column("fiveXx") },
      ],
    },
  ];
  if (timeline.some((second) => second.at("p99Ms").present)) {
    panels.push({
      title: `${name}: response time`,
      xLabel: "second of the phase (s)",
      yLabel: "response time (ms)",
      bands: band,
      series: [
        { name: "p50", colour: COLOURS.accepted, dashed: true, points: column("p50Ms") },
        { name: "p99", colour: COLOURS.accepted, points: column("p99Ms") },
      ],
    });
  }
  const burst = fault.at("overload.perSecond");
  if (burst.present) panels.push(burstPanel(name, burst, band[0]!.from));
  return panels;
}

/** The overload burst counts its seconds from its own start: shifted to the phase's seconds. */
function burstPanel(name: string, perSecond: ResultNode, startSecond: number): Panel {
  const line = (key: string, label: string, colour: string, dashed = false): Series => ({
    name: label,
    colour,
    dashed,
    points: perSecond.numbers(key).map((y, i) => ({ x: startSecond + i, y })),
  });
  return {
    title: `${name}: the burst`,
    xLabel: "second of the phase (s)",
    yLabel: "requests (per s)",
    series: [
      line("sent", "sent", COLOURS.offered, true),
      line("answered", "answered", "#2f9e44"),
      line("accepted", "2xx accepted", COLOURS.accepted),
    ],
  };
}
