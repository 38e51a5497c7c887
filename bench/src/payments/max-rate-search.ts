// --max: short fixed-rate stages chosen by max-rate-plan.ts until the highest rate with intake p99 < 50 ms is
// bracketed. Each stage waits for the workers to catch up, so a stage never inherits the previous backlog.
import type { BenchTarget } from "../harness/bench-target.ts";
import type { CpuUsage } from "../harness/cpu-meter.ts";
import { maxAcceptedRate, nextRate, stagePassed } from "../harness/max-rate-plan.ts";
import { log } from "../harness/progress-line.ts";
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
  /** Paired search (--auth compare): whether this system ran the rate before the other one. */
  ranFirst?: boolean;
  /**
   * Paired search: this stage is a second run at the same rate, because the first failed while Redis doubled its
   * key table (key-table-doubling.ts); the first one's figures, kept for the record.
   */
  rerunOf?: { keyTableSize: number; acceptedRate: number; p99Ms: number | null; passed: boolean };
}

export interface MaxRateResult {
  target: string;
  criterion: string;
  stageDurationS: number;
  /** Highest accepted rate among passing stages; null if even the lowest stage failed. */
  maxAcceptedRate: number | null;
  stages: MaxStage[];
}

/** What every stage of a search against one target shares. */
export interface StageOptions {
  target: BenchTarget;
  stageDurationS: number;
  connections: number;
  slices: number;
  users: number;
  keyPrefix: string;
  /** Reads Redis' key count; absent for a target without Redis (the baseline). */
  redisKeys?: () => Promise<number>;
  /** Names the target in progress lines (default: its name); the paired search runs two Floodgates. */
  label?: string;
}

export const MAX_RATE_CRITERION =
  "intake p99 < 50 ms, accepted >= 95% of offered, failures <= 0.1% of responses";

/** One stage: `rate`/s for the stage duration, its backlog applied and audited, judged by stagePassed. */
export async function runMaxStage(
  options: StageOptions,
  rate: number,
  stageNumber: number,
): Promise<MaxStage> {
  const label = options.label ?? options.target.name;
  // A failed read leaves the figure out; it is a diagnosis, not part of the verdict.
  const readKeys = async () => (options.redisKeys ? await options.redisKeys().catch(() => null) : null);
  const keysAtStart = await readKeys();
  const phase: RatePhaseResult = await runRatePhase({
    target: options.target,
    label: `${label} max stage ${stageNumber} @ ${rate}/s`,
    rate,
    durationS: options.stageDurationS,
    connections: options.connections,
    slices: options.slices,
    users: options.users,
    keyPrefix: `${options.keyPrefix}-s${stageNumber}`,
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
  log(
    `${label} stage ${stageNumber}: offered ${rate}/s, accepted ${stage.acceptedRate}/s, ` +
      `intake p99 ${p99Ms ?? "n/a"} ms, failures ${failures}: ${stage.passed ? "pass" : "fail"}`,
  );
  return stage;
}

export function maxRateResult(target: string, stageDurationS: number, stages: MaxStage[]): MaxRateResult {
  return {
    target,
    criterion: MAX_RATE_CRITERION,
    stageDurationS,
    maxAcceptedRate: maxAcceptedRate(stages),
    stages,
  };
}

export async function searchMaxRate(options: StageOptions): Promise<MaxRateResult> {
  const stages: MaxStage[] = [];
  for (let rate = nextRate(stages); rate !== null; rate = nextRate(stages)) {
    stages.push(await runMaxStage(options, rate, stages.length + 1));
  }
  return maxRateResult(options.target.name, options.stageDurationS, stages);
}
