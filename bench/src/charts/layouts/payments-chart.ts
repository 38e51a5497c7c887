// bench payments: the --max (or --sustained) stages of every target side by side (Floodgate, its paired twin
// under --auth compare or --redis cluster, the synchronous baseline), the fixed-rate run second by second, and
// --drain.
// A --generator wrk run is a saturation comparison of another shape: saturation-chart.ts draws it.
import type { Panel } from "../chart-model.ts";
import { ChartInputError, type ResultNode } from "../result-node.ts";
import { type PhaseFigures, phaseBarPanels } from "./phase-bars.ts";
import { isSaturationResult, saturationPanels, saturationTitleLines } from "./saturation-chart.ts";
import { readSeconds, secondPanels } from "./second-panels.ts";
import { stagePanels, type TargetStages } from "./stage-panels.ts";

const KNOWN_TARGETS = ["floodgate", "floodgateAuthOff", "floodgateCluster", "baseline"];

/** The result's targets in drawing order, named as the run's pairing calls them; then any other member holding
 * measured phases (a peer system), named by the target its phases record. */
function targets(result: ResultNode): { name: string; node: ResultNode }[] {
  const redis = result.at("settings.redis").value;
  const auth = result.at("settings.auth").value;
  const names: Record<string, string> = {
    baseline: "sync baseline",
    ...(redis === "cluster-wait"
      ? { floodgate: "no WAIT", floodgateCluster: "REDIS_WAIT_REPLICAS=1" }
      : auth === "compare"
        ? { floodgate: "auth on", floodgateAuthOff: "AUTH=off" }
        : redis === "cluster"
          ? { floodgate: "one Redis", floodgateCluster: "Redis Cluster" }
          : { floodgate: "Floodgate" }),
  };
  const others = Object.keys(result.value as object).filter((key) => !KNOWN_TARGETS.includes(key));
  // Objects, not the settings' `max: true` or `rate: 2000`.
  const measured = (node: ResultNode) => node.at("max").isObject() || node.at("rate").isObject();
  return [
    ...KNOWN_TARGETS.map((key) => ({ name: names[key] ?? key, node: result.at(key) })).filter((t) =>
      t.node.isObject(),
    ),
    ...others
      .map((key) => result.at(key))
      .filter((node) => node.isObject() && measured(node))
      .map((node) => ({
        name: String(node.at("max.target").value ?? node.at("rate.target").value ?? node.path),
        node,
      })),
  ];
}

function stagesOf(name: string, search: ResultNode): TargetStages {
  return {
    name,
    stages: search.list("stages").map((stage) => ({
      offered: stage.number("offeredRate"),
      accepted: stage.number("acceptedRate"),
      p50Ms: stage.optionalNumber("p50Ms"),
      p99Ms: stage.optionalNumber("p99Ms"),
    })),
  };
}

function ratePhase(name: string, phase: ResultNode): PhaseFigures {
  return {
    phase: name,
    rate: phase.number("acceptedRate"),
    p50Ms: phase.optionalNumber("intakeLatencyMs.p50"),
    p99Ms: phase.optionalNumber("intakeLatencyMs.p99"),
  };
}

/** The goals' verdicts of a saturation comparison; nothing for the other payments runs. */
export const paymentsTitleLines = (result: ResultNode): string[] =>
  isSaturationResult(result) ? saturationTitleLines(result) : [];

export function paymentsPanels(result: ResultNode): Panel[][] {
  if (isSaturationResult(result)) return saturationPanels(result);
  const all = targets(result);
  if (all.length === 0) throw result.at("floodgate").missing("an object with the target's phases");
  const rows: Panel[][] = [];
  const withMax = all.filter((t) => t.node.at("max").present);
  if (withMax.length > 0) {
    rows.push(
      stagePanels(
        withMax.map((t) => stagesOf(t.name, t.node.at("max"))),
        "payments",
      ),
    );
  }
  // --sustained: stages of the same figures, each held until every payment was applied.
  const withSustained = all.filter((t) => t.node.at("sustained").isObject());
  if (withSustained.length > 0) {
    const stages = withSustained.map((t) => stagesOf(t.name, t.node.at("sustained")));
    rows.push(
      stagePanels(stages, "payments").map((panel) => ({
        ...panel,
        title: panel.title.replace("per stage", "per --sustained stage"),
      })),
    );
  }
  const withRate = all.filter((t) => t.node.at("rate").present);
  if (withRate.some((t) => t.node.at("rate.perSecond").present)) {
    const seconds = withRate.map((t) => readSeconds(t.name, t.node.at("rate"), "perSecond.accepted"));
    rows.push(secondPanels(seconds, "payments", "fixed rate"));
  } else if (withRate.length > 0) {
    const phases = withRate.map((t) => ({
      name: t.name,
      phases: [
        ...(t.node.at("warmUp").present ? [ratePhase("warm-up", t.node.at("warmUp"))] : []),
        ratePhase("fixed rate", t.node.at("rate")),
      ],
    }));
    rows.push(phaseBarPanels(phases, "accepted (payments/s)"));
  }
  const drain = all.find((t) => t.node.at("drain").present);
  if (drain) rows.push(drainPanels(drain.name, drain.node.at("drain")));
  if (rows.length === 0) {
    throw new ChartInputError(
      `${result.file}: no max.stages, sustained.stages, rate or drain phase under ${all.map((t) => t.node.path).join(", ")}`,
    );
  }
  return rows;
}

/** --drain: how fast the backlog was queued, drained and worked, and the end-to-end time it took. */
function drainPanels(name: string, drain: ResultNode): Panel[] {
  const endToEnd = {
    p50Ms: drain.optionalNumber("audit.endToEndMs.p50"),
    p99Ms: drain.optionalNumber("audit.endToEndMs.p99"),
  };
  return phaseBarPanels(
    [
      {
        name: `${name} drain`,
        phases: [
          { phase: "queueing", rate: drain.number("queueRate"), p50Ms: null, p99Ms: null },
          { phase: "draining", rate: drain.number("drainRate"), ...endToEnd },
          { phase: "workers", rate: drain.optionalNumber("workerRate"), p50Ms: null, p99Ms: null },
        ],
      },
    ],
    "rate (payments/s)",
    { title: "accepted to applied, the drained payments", yLabel: "end to end (ms)" },
  );
}
