// --sustained (issue 30, target 3): the highest rate the whole system holds for --sustained-duration seconds,
// workers running, judged by sustained-stage.ts; rates chosen by sustained-plan.ts.
import type { BenchTarget } from "../harness/bench-target.ts";
import { describeCpuUsage } from "../harness/cpu-meter.ts";
import { formatCount, log } from "../harness/progress-line.ts";
import { DEFAULT_SUSTAINED_PLAN, highestSustainedRate, nextSustainedRate } from "./sustained-plan.ts";
import { runSustainedStage, SUSTAINED_CRITERION, type SustainedStage } from "./sustained-stage.ts";

export interface SustainedResult {
  criterion: string;
  stageDurationS: number;
  /** Highest passing offered rate; null if even the first stage failed. */
  highestRate: number | null;
  /** That stage's accepted rate. */
  highestAcceptedRate: number | null;
  stages: SustainedStage[];
}

export async function searchSustainedRate(options: {
  target: BenchTarget;
  startRate: number;
  maxStages: number;
  stageDurationS: number;
  connections: number;
  slices: number;
  users: number;
  keyPrefix: string;
  redisUrl: string;
  streams: readonly string[];
}): Promise<SustainedResult> {
  const plan = { ...DEFAULT_SUSTAINED_PLAN, startRate: options.startRate, maxStages: options.maxStages };
  const stages: SustainedStage[] = [];
  for (let rate = nextSustainedRate(stages, plan); rate !== null; rate = nextSustainedRate(stages, plan)) {
    const number = stages.length + 1;
    const stage = await runSustainedStage({
      ...options,
      label: `sustained stage ${number} @ ${rate}/s`,
      rate,
      durationS: options.stageDurationS,
      keyPrefix: `${options.keyPrefix}-s${number}`,
    });
    stages.push(stage);
    log(`sustained stage ${number}: ${sustainedStageLine(stage)}`);
  }
  const highestRate = highestSustainedRate(stages);
  return {
    criterion: SUSTAINED_CRITERION,
    stageDurationS: options.stageDurationS,
    highestRate,
    highestAcceptedRate: stages.find((s) => s.passed && s.offeredRate === highestRate)?.acceptedRate ?? null,
    stages,
  };
}

export function sustainedStageLine(s: SustainedStage): string {
  return (
    `offered ${formatCount(s.offeredRate)}/s, accepted ${formatCount(s.acceptedRate)}/s, intake p50 ${s.p50Ms ?? "n/a"} ms ` +
    `p99 ${s.p99Ms ?? "n/a"} ms, applied once ${formatCount(s.appliedOnce)}/${formatCount(s.accepted)}, ` +
    `max lag ${s.maxLagS ?? "n/a"} s over ${s.lagSeriesS.length} samples: ` +
    (s.passed ? "pass" : `fail (${s.failedBecause.join("; ")})`)
  );
}

export function sustainedLines(result: SustainedResult): string[] {
  const best =
    result.highestRate === null
      ? "none passed"
      : `${formatCount(result.highestRate)}/s offered (${formatCount(result.highestAcceptedRate ?? 0)}/s accepted)`;
  return [
    `  highest rate held ${result.stageDurationS} s with ${result.criterion}: ${best}`,
    ...result.stages.flatMap((s, i) => [
      `    stage ${i + 1}: ${sustainedStageLine(s)}`,
      `      ${describeCpuUsage(s.cpu)}`,
    ]),
  ];
}
