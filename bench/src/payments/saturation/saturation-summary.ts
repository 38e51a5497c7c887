// What the saturation comparison prints and writes: the common head, a line per stage, each target's medians
// and the goals' ratios, met or not.
import { formatCount } from "../../harness/progress-line.ts";
import { type ResultHead, summaryHead } from "../../harness/result-head.ts";
import { STEADY_REFERENCE_SPREAD_PERCENT } from "./bracketed-comparisons.ts";
import type { SaturationStage, TargetKey } from "./saturation-stage.ts";
import type { RatioVerdict, TargetMedians } from "./saturation-verdict.ts";

export interface SaturationResult extends ResultHead<"payments"> {
  mode: "saturation";
  users: number;
  targets: { key: TargetKey; label: string }[];
  stages: SaturationStage[];
  medians: TargetMedians[];
  verdicts: RatioVerdict[];
}

const us = (value: number | null) => (value === null ? "n/a" : `${value} µs`);

export function stageLine(stage: SaturationStage, label: string = stage.target): string {
  const c = stage.cpu.perAcceptedUs;
  const verdict = stage.passed ? "pass" : `FAIL (${stage.failure})`;
  // What else the shared machine ran meanwhile (other helpers, the idle targets): a busy stage reads low.
  const rest = stage.cpu.restOfMachinePercent;
  const other = rest === null ? "" : `; rest of the machine ${rest} % of a core`;
  return `${label} ${formatCount(stage.acceptedRate)} accepted/s, p50 ${stage.latencyMs.p50} ms p99 ${stage.latencyMs.p99} ms; cpu per accepted: target ${us(c.target)}, Redis ${us(c.redisInfo)}, wrk ${us(c.loadGenerator)}${other}; ${verdict}`;
}

function medianLine(median: TargetMedians, label: string): string {
  const rate = median.acceptedRate === null ? "no stage" : `${formatCount(median.acceptedRate)} accepted/s`;
  const failed = median.failedStages > 0 ? `, ${median.failedStages} FAILED` : "";
  const c = median.cpuPerAcceptedUs;
  return `  ${label}: median ${rate} over ${median.stages} stage(s)${failed}, p99 ${median.p99Ms ?? "n/a"} ms; cpu per accepted: target ${us(c.target)}, Redis ${us(c.redis)}, wrk ${us(c.loadGenerator)}`;
}

function verdictLine(verdict: RatioVerdict): string {
  if (verdict.met === null) return `  ${verdict.name}: not run (goal >= ${verdict.goal})`;
  const state = verdict.met ? "met" : `NOT met${verdict.note ? ` (${verdict.note})` : ""}`;
  const rounds =
    verdict.roundRatios.length > 0
      ? ` (median of ${verdict.roundRatios.length} steady comparisons, each stage against the AUTH=off stages around it: ${verdict.roundRatios.join(", ")}; the medians' ratio ${verdict.ratioOfMedians ?? "n/a"})`
      : "";
  // Kept in view: a reader sees what the verdict left out, and why.
  const setAside =
    verdict.unsteady.length > 0
      ? `; set aside, the AUTH=off stages around them more than ${STEADY_REFERENCE_SPREAD_PERCENT} % apart: ${verdict.unsteady.map(({ ratio, references }) => `${ratio} (${references.map(formatCount).join(" then ")})`).join(", ")}`
      : "";
  return `  ${verdict.name} = ${verdict.ratio ?? "n/a"}${rounds}${setAside} (goal >= ${verdict.goal}): ${state}`;
}

export function summarizeSaturation(result: SaturationResult): string[] {
  const label = (key: TargetKey) => result.targets.find((target) => target.key === key)?.label ?? key;
  return [
    ...summaryHead(result),
    `load: ${result.loadGenerator}; ${result.users} shoppers, a fresh Idempotency-Key per request`,
    "stages:",
    ...result.stages.map(
      (stage) => `  round ${stage.round} #${stage.position + 1} ${stageLine(stage, label(stage.target))}`,
    ),
    "medians over the rounds:",
    ...result.medians.map((median) => medianLine(median, label(median.target))),
    "goals (floodgate = the intake alone with AUTH=off):",
    ...result.verdicts.map(verdictLine),
    ...(result.error ? [`ERROR: ${result.error}`] : []),
  ];
}
