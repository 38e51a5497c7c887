// bench coupon-drop: one burst of claims, every answer counted (202 claimed, 409 already, 410 gone): answers
// per second and their response times, one Redis beside a Redis Cluster under --redis cluster.
import type { Panel } from "../chart-model.ts";
import type { ResultNode } from "../result-node.ts";
import { phaseBarPanels } from "./phase-bars.ts";
import { secondPanels } from "./second-panels.ts";

export function couponDropPanels(result: ResultNode): Panel[][] {
  const cluster = result.at("floodgateCluster");
  const targets = cluster.isObject()
    ? [
        { name: "one Redis", node: result.at("load") },
        { name: "Redis Cluster", node: cluster.at("load") },
      ]
    : [{ name: "Floodgate", node: result.at("load") }];
  if (!targets[0]!.node.present) throw targets[0]!.node.missing("the drop's load");
  const rows: Panel[][] = [];
  // Most answers of a drop are 409/410: every answer counts here, the 202s are a thousand of them.
  if (targets.every((t) => t.node.at("perSecond").present)) {
    rows.push(
      secondPanels(
        targets.map((t) => ({
          name: t.name,
          accepted: t.node.numbers("perSecond.responses"),
          p50Ms: t.node.numbers("perSecond.p50Ms"),
          p99Ms: t.node.numbers("perSecond.p99Ms"),
        })),
        "answers",
        "the drop",
      ).map((panel) => ({
        ...panel,
        title: panel.title.replace("accepted", "answered"),
        yLabel: panel.yLabel.replace("accepted", "answered"),
      })),
    );
  }
  rows.push(
    phaseBarPanels(
      targets.map((t) => ({
        name: t.name,
        phases: [
          {
            phase: "the drop",
            rate: t.node.number("rate"),
            p50Ms: t.node.optionalNumber("latencyMs.p50"),
            p99Ms: t.node.optionalNumber("latencyMs.p99"),
          },
        ],
      })),
      "answers (responses/s)",
    ),
  );
  return rows;
}
