// One stage of the saturation comparison: wrk saturates one target for the stage's seconds while the cpu of the
// target's own processes, of Redis (its /proc times and its INFO count) and of wrk is read, each divided by the
// requests the target accepted. Any answer but 202, and any socket error or timeout, fails the stage: a 503 from
// load shedding or backpressure is Floodgate refusing work, not a result.
import type { Redis } from "ioredis";
import { type CpuUsage, startCpuMeter } from "../../harness/cpu-meter.ts";
import { processCpuSeconds, redisCpuSeconds } from "./process-cpu.ts";
import { runWrk, unexpectedStatuses, type WrkReport } from "./wrk-run.ts";

export const TARGET_KEYS = ["floodgate", "floodgateAuthOn", "floodgateCompared", "raw", "bullmq"] as const;
export type TargetKey = (typeof TARGET_KEYS)[number];

export interface SaturationTarget {
  key: TargetKey;
  label: string;
  baseUrl: string;
  /** Customer tokens for wrk (auth on); null sends none. */
  tokensFile: string | null;
  /** The target's own processes (Floodgate's intake, a peer), read at each stage's start and end. */
  pids(): number[];
  /**
   * The glob of the keys a stage leaves in Redis, given the stage's Idempotency-Key prefix (stage-keys.ts
   * unlinks them after it); null when its stages leave none that accumulate.
   */
  stageKeys(stageKeyPrefix: string): string | null;
}

/** Cpu seconds a stage cost, and the same per accepted request in µs (null where not measured). */
export interface StageCpu {
  targetS: number | null;
  redisS: number | null;
  redisInfoS: number;
  loadGeneratorS: number;
  perAcceptedUs: {
    target: number | null;
    redis: number | null;
    redisInfo: number | null;
    loadGenerator: number | null;
  };
  /** The whole machine by group (cpu-meter.ts; a peer counts as "other"). */
  machine: CpuUsage | null;
  /** The machine's cpu beside the target, Redis and wrk, in % of one core: other work on the shared machine and
   * the idle targets; a stage with much of it measured a busy machine. */
  restOfMachinePercent: number | null;
}

export interface SaturationStage {
  round: number;
  target: TargetKey;
  /** 0 when the target ran first in its round. */
  position: number;
  durationS: number;
  requests: number;
  /** 202 answers. */
  accepted: number;
  acceptedRate: number;
  statuses: Record<string, number>;
  errors: WrkReport["errors"];
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  cpu: StageCpu;
  passed: boolean;
  failure: string | null;
}

export interface StageRig {
  wrk: string;
  redis: Redis;
  redisPid: number | null;
  connections: number;
  durationS: number;
  users: number;
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const perAccepted = (seconds: number | null, accepted: number) =>
  seconds === null || accepted === 0 ? null : round1((seconds * 1e6) / accepted);
const difference = (before: number | null, after: number | null) =>
  before === null || after === null ? null : Math.round((after - before) * 1000) / 1000;

/**
 * The machine's reading with wrk's cpu added to the load generator: wrk starts after the meter's first reading
 * and has exited by its last, so /proc never shows it (cpu-meter.ts misses such a process); its script's
 * os.clock() counts it instead.
 */
export function withWrk(usage: CpuUsage | null, wrkCpuS: number): CpuUsage | null {
  if (usage === null || usage.windowS <= 0) return usage;
  const percent = Math.round((wrkCpuS / usage.windowS) * 100 * 10) / 10;
  return {
    ...usage,
    percentOfOneCore: {
      ...usage.percentOfOneCore,
      loadGenerator: usage.percentOfOneCore.loadGenerator + percent,
    },
    totalPercent: Math.round((usage.totalPercent + percent) * 10) / 10,
  };
}

/** The machine's total less the stage's own parts (cpu seconds over its window), in % of one core. */
export function restOfMachine(machine: CpuUsage | null, partsS: readonly (number | null)[]): number | null {
  if (machine === null || machine.windowS <= 0 || partsS.some((part) => part === null)) return null;
  const parts = (partsS as number[]).reduce((sum, part) => sum + part, 0);
  return Math.max(0, Math.round((machine.totalPercent - (parts / machine.windowS) * 100) * 10) / 10);
}

/** Why the stage failed, or null: anything but 202, a socket error or timeout, or nothing accepted. */
export function stageFailure(report: WrkReport): string | null {
  const unexpected = unexpectedStatuses(report);
  const reasons: string[] = Object.entries(unexpected).map(([status, count]) => `${count} x ${status}`);
  for (const [kind, count] of Object.entries(report.errors))
    if (count > 0) reasons.push(`${count} ${kind} errors`);
  if (reasons.length === 0 && (report.statuses["202"] ?? 0) === 0) reasons.push("nothing accepted");
  return reasons.length === 0 ? null : reasons.join(", ");
}

export async function runSaturationStage(
  rig: StageRig,
  target: SaturationTarget,
  at: { round: number; position: number; keyPrefix: string },
): Promise<SaturationStage> {
  const pids = target.pids();
  const redisPids = rig.redisPid === null ? [] : [rig.redisPid];
  const before = {
    target: processCpuSeconds(pids),
    redis: processCpuSeconds(redisPids),
    redisInfo: await redisCpuSeconds(rig.redis),
  };
  const meter = startCpuMeter();
  const report = await runWrk({
    wrk: rig.wrk,
    url: target.baseUrl,
    connections: rig.connections,
    durationS: rig.durationS,
    keyPrefix: at.keyPrefix,
    users: rig.users,
    tokensFile: target.tokensFile,
  });
  const machine = withWrk(meter.stop(), report.cpuS);
  const targetS = difference(before.target, processCpuSeconds(pids));
  const redisS = difference(before.redis, processCpuSeconds(redisPids));
  const redisInfoS = difference(before.redisInfo, await redisCpuSeconds(rig.redis)) ?? 0;
  const accepted = report.statuses["202"] ?? 0;
  const durationS = report.durationUs / 1e6;
  const failure = stageFailure(report);
  const ms = (us: number) => Math.round(us / 100) / 10;
  return {
    round: at.round,
    target: target.key,
    position: at.position,
    durationS: Math.round(durationS * 100) / 100,
    requests: report.requests,
    accepted,
    acceptedRate: Math.round(accepted / durationS),
    statuses: report.statuses,
    errors: report.errors,
    latencyMs: {
      p50: ms(report.latencyUs.p50),
      p90: ms(report.latencyUs.p90),
      p99: ms(report.latencyUs.p99),
      max: ms(report.latencyUs.max),
    },
    cpu: {
      targetS,
      redisS,
      redisInfoS,
      loadGeneratorS: report.cpuS,
      perAcceptedUs: {
        target: perAccepted(targetS, accepted),
        redis: perAccepted(redisS, accepted),
        redisInfo: perAccepted(redisInfoS, accepted),
        loadGenerator: perAccepted(report.cpuS, accepted),
      },
      machine,
      restOfMachinePercent: restOfMachine(machine, [targetS, redisS ?? redisInfoS, report.cpuS]),
    },
    passed: failure === null,
    failure,
  };
}
