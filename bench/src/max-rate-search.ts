// --max: short fixed-rate stages chosen by max-rate-plan.ts until the highest rate with intake p99 < 50 ms is
// bracketed. Each stage waits for the workers to catch up, so a stage never inherits the previous backlog.
import type { BenchTarget } from "./bench-target.ts";
import type { CpuUsage } from "./cpu-meter.ts";
import { maxAcceptedRate, nextRate, stagePassed } from "./max-rate-plan.ts";
import { log } from "./progress-line.ts";
import { type RatePhaseResult, runRatePhase } from "./rate-phase.ts";

export interface MaxStage {
  offeredRate: number;
  acceptedRate: number;
  p50Ms: number | null;
  p99Ms: number | null;
  failures: number;
  endToEndP99Ms: number | null;
  exactlyOnce: boolean;
  missing: number;
  duplicated: number;
  allApplied: boolean;
  passed: boolean;
  /** Where the cpu went during the stage: a stage that misses its pace with both cores busy ran out of machine. */
  cpu: CpuUsage | null;
  /** Keys in Redis when the stage started and ended (Floodgate only): a stage across 2^n keys pays for a rehash. */
  redisKeys?: { atStart: number; atEnd: number } | null;
}

export interface MaxRateResult {
  target: string;
  criterion: string;
  stageDurationS: number;
  /** Highest accepted rate among passing stages; null if even the lowest stage failed. */
  maxAcceptedRate: number | null;
  stages: MaxStage[];
}

export async function searchMaxRate(options: {
  target: BenchTarget;
  stageDurationS: number;
  connections: number;
  slices: number;
  users: number;
  keyPrefix: string;
  /** Reads Redis' key count; absent for a target without Redis (the baseline). */
  redisKeys?: () => Promise<number>;
}): Promise<MaxRateResult> {
  const stages: MaxStage[] = [];
  // A failed read leaves the figure out; it is a diagnosis, not part of the verdict.
  const readKeys = async () => (options.redisKeys ? await options.redisKeys().catch(() => null) : null);
  for (let rate = nextRate(stages); rate !== null; rate = nextRate(stages)) {
    const keysAtStart = await readKeys();
    const phase: RatePhaseResult = await runRatePhase({
      target: options.target,
      label: `${options.target.name} max stage ${stages.length + 1} @ ${rate}/s`,
      rate,
      durationS: options.stageDurationS,
      connections: options.connections,
      slices: options.slices,
      users: options.users,
      keyPrefix: `${options.keyPrefix}-s${stages.length + 1}`,
      applyTimeoutMs: 60_000,
    });
    const keysAtEnd = await readKeys();
    const failures = phase.non2xx + phase.errors;
    const p99Ms = phase.intakeLatencyMs?.p99 ?? null;
    const stage: MaxStage = {
      offeredRate: rate,
      acceptedRate: phase.acceptedRate,
      p50Ms: phase.intakeLatencyMs?.p50 ?? null,
      p99Ms,
      failures,
      endToEndP99Ms: phase.audit.endToEndMs?.p99 ?? null,
      exactlyOnce: phase.audit.exactlyOnce,
      missing: phase.audit.missing,
      duplicated: phase.audit.duplicated + phase.audit.duplicateAcceptedIds,
      allApplied: phase.allApplied,
      passed: stagePassed({
        offeredRate: rate,
        acceptedRate: phase.acceptedRate,
        p99Ms,
        failures,
        responses: phase.responses,
      }),
      cpu: phase.cpu,
      ...(options.redisKeys
        ? {
            redisKeys:
              keysAtStart === null || keysAtEnd === null ? null : { atStart: keysAtStart, atEnd: keysAtEnd },
          }
        : {}),
    };
    stages.push(stage);
    log(
      `${options.target.name} stage ${stages.length}: offered ${rate}/s, accepted ${stage.acceptedRate}/s, ` +
        `intake p99 ${p99Ms ?? "n/a"} ms, failures ${failures}: ${stage.passed ? "pass" : "fail"}`,
    );
  }
  return {
    target: options.target.name,
    criterion: "intake p99 < 50 ms, accepted >= 95% of offered, failures <= 0.1% of responses",
    stageDurationS: options.stageDurationS,
    maxAcceptedRate: maxAcceptedRate(stages),
    stages,
  };
}
