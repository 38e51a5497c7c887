// bench hot-product: the sale second by second (one Redis beside a Redis Cluster under --redis cluster), the
// sale and the payments that follow as one figure per phase, and the --max stages.
import type { Panel } from "../chart-model.ts";
import { ChartInputError, type ResultNode } from "../result-node.ts";
import { type PhaseFigures, phaseBarPanels } from "./phase-bars.ts";
import { readSeconds, secondPanels } from "./second-panels.ts";
import { stagePanels } from "./stage-panels.ts";

function phase(name: string, node: ResultNode): PhaseFigures[] {
  if (!node.present) return [];
  return [
    {
      phase: name,
      rate: node.number("acceptedRate"),
      p50Ms: node.optionalNumber("latencyMs.p50"),
      p99Ms: node.optionalNumber("latencyMs.p99"),
    },
  ];
}

export function hotProductPanels(result: ResultNode): Panel[][] {
  const cluster = result.at("floodgateCluster");
  const targets = cluster.isObject()
    ? [
        { name: "one Redis", node: result },
        { name: "Redis Cluster", node: cluster },
      ]
    : [{ name: "Floodgate", node: result }];
  const rows: Panel[][] = [];
  const withSale = targets.filter((t) => t.node.at("sale").present);
  if (withSale.length > 0) {
    rows.push(
      secondPanels(
        withSale.map((t) => readSeconds(t.name, t.node.at("sale"), "acceptedPerSecond")),
        "orders",
        "the sale",
      ),
    );
    rows.push(
      phaseBarPanels(
        withSale.map((t) => ({
          name: t.name,
          phases: [...phase("sale", t.node.at("sale")), ...phase("payments", t.node.at("payment"))],
        })),
        "accepted (per s)",
      ),
    );
  }
  if (result.at("max").present) {
    const stages = result.list("max.stages").map((stage) => ({
      offered: stage.number("sale.offeredRate"),
      accepted: stage.number("sale.acceptedRate"),
      p50Ms: stage.optionalNumber("sale.latencyMs.p50"),
      p99Ms: stage.optionalNumber("sale.latencyMs.p99"),
    }));
    rows.push(stagePanels([{ name: targets[0]!.name, stages }], "orders"));
  }
  if (rows.length === 0) throw new ChartInputError(`${result.file}: neither sale nor max.stages is there`);
  return rows;
}
