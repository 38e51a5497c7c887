// One --sustained stage: payments at `rate`/s for the stage duration with the workers running, the consumer lag
// sampled every second from the first request until the last accepted payment is applied, then the delivery
// audit. Judged by sustainedVerdict: every answer a 202, the rate offered, every payment applied exactly once,
// and no lag sample at or above 1 s.
import { startLagSampler } from "../audits/lag-sampler.ts";
import type { BenchTarget } from "../harness/bench-target.ts";
import type { CpuUsage } from "../harness/cpu-meter.ts";
import { runRatePhase } from "./rate-phase.ts";

export const SUSTAINED_CRITERION =
  "every answer 202, accepted >= 95% of offered, every accepted payment applied exactly once, consumer lag < 1 s in every 1-s sample";

const MAX_LAG_S = 1;
const MIN_ACCEPTED_SHARE = 0.95;

export interface SustainedStage {
  offeredRate: number;
  acceptedRate: number;
  responses: number;
  accepted: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Answers by HTTP status: which refusal a failing stage met (503 busy, 429, ...). */
  statusCounts: Record<string, number>;
  p50Ms: number | null;
  p99Ms: number | null;
  appliedOnce: number;
  exactlyOnce: boolean;
  allApplied: boolean;
  maxLagS: number | null;
  /** The lag sampled once a second, seconds, from the first request to the last payment applied. */
  lagSeriesS: number[];
  lagFailedSamples: number;
  cpu: CpuUsage | null;
  passed: boolean;
  /** Why it failed, in words; empty when it passed. */
  failedBecause: string[];
}

type StageFigures = Omit<SustainedStage, "passed" | "failedBecause">;

/** Pure: the reasons a stage fails, none when it passes. */
export function sustainedVerdict(stage: StageFigures): string[] {
  const reasons: string[] = [];
  if (stage.responses === 0) reasons.push("no response");
  if (stage.accepted < stage.responses || stage.errors > 0 || stage.timeouts > 0) {
    const statuses = Object.entries(stage.statusCounts)
      .filter(([status]) => status !== "202")
      .map(([status, count]) => `${status}: ${count}`);
    reasons.push(
      `not every answer a 202 (${[...statuses, `errors ${stage.errors}`, `timeouts ${stage.timeouts}`].join(", ")})`,
    );
  }
  if (stage.acceptedRate < stage.offeredRate * MIN_ACCEPTED_SHARE) {
    reasons.push(`accepted ${stage.acceptedRate}/s of ${stage.offeredRate}/s offered`);
  }
  if (!stage.allApplied || !stage.exactlyOnce)
    reasons.push("not every accepted payment applied exactly once");
  if (stage.lagFailedSamples > 0) reasons.push(`${stage.lagFailedSamples} lag sample(s) could not be read`);
  if (stage.maxLagS === null) reasons.push("no lag sample");
  else if (stage.maxLagS >= MAX_LAG_S) reasons.push(`consumer lag reached ${stage.maxLagS} s`);
  return reasons;
}

export async function runSustainedStage(options: {
  target: BenchTarget;
  label: string;
  rate: number;
  durationS: number;
  connections: number;
  slices: number;
  users: number;
  keyPrefix: string;
  redisUrl: string;
  streams: readonly string[];
}): Promise<SustainedStage> {
  const sampler = startLagSampler({ redisUrl: options.redisUrl, streams: options.streams });
  let lag: Awaited<ReturnType<typeof sampler.stop>> | null = null;
  try {
    const phase = await runRatePhase({
      target: options.target,
      label: options.label,
      rate: options.rate,
      durationS: options.durationS,
      connections: options.connections,
      slices: options.slices,
      users: options.users,
      keyPrefix: options.keyPrefix,
      applyTimeoutMs: 60_000,
    });
    lag = await sampler.stop();
    const figures: StageFigures = {
      offeredRate: options.rate,
      acceptedRate: phase.acceptedRate,
      responses: phase.responses,
      accepted: phase.accepted,
      non2xx: phase.non2xx,
      errors: phase.errors,
      timeouts: phase.timeouts,
      statusCounts: phase.statusCounts,
      p50Ms: phase.intakeLatencyMs?.p50 ?? null,
      p99Ms: phase.intakeLatencyMs?.p99 ?? null,
      appliedOnce: phase.audit.appliedOnce,
      exactlyOnce: phase.audit.exactlyOnce,
      allApplied: phase.allApplied,
      maxLagS: lag.maxLagS,
      lagSeriesS: lag.samplesS,
      lagFailedSamples: lag.failedSamples,
      cpu: phase.cpu,
    };
    const failedBecause = sustainedVerdict(figures);
    return { ...figures, passed: failedBecause.length === 0, failedBecause };
  } finally {
    if (lag === null) await sampler.stop();
  }
}
