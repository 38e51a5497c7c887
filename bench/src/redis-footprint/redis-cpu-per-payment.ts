// Redis CPU per applied payment (issue 30, target 2): INFO cpu's used_cpu_sys + used_cpu_user read before a
// phase's load and again once every accepted payment is applied. Everything the system asked of Redis for those
// payments is in it (the intake's enqueue, the workers' reads, acknowledgements and final statuses, trims,
// expiries), and so is whatever else Redis did meanwhile (the admission leader's refresh, the workers' polls,
// the bench's own reads): at a low rate that share is larger, so the figure errs high. Redis being the bench's
// own (BENCH_REDIS_URL), nothing else is in it.
import { connectRedis, type RedisClient } from "@floodgate/test-fixtures";
import { formatCount, log } from "../harness/progress-line.ts";

export interface RedisCpu {
  /** Seconds of Redis CPU (user + sys, every thread) between the two reads. */
  cpuSeconds: number;
  /** Payments applied in the window: every accepted one. */
  applied: number;
  /** cpuSeconds / applied in µs, one decimal; null with nothing applied. */
  usPerApplied: number | null;
  /** The rate one Redis primary would carry at that cost with a whole core: 1 s / usPerApplied. */
  paymentsPerCoreSecond: number | null;
  note: string;
}

const NOTE =
  "INFO cpu used_cpu_sys + used_cpu_user of the whole Redis, read before the load and once every accepted payment was applied";

export interface RedisCpuMeasure {
  /** Call once every accepted payment is applied; closes the connection. */
  finish(applied: number): Promise<RedisCpu | null>;
}

async function redisCpuSeconds(redis: RedisClient): Promise<number> {
  const info = await redis.info("cpu");
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(info)?.[1] ?? Number.NaN);
  const seconds = field("used_cpu_sys") + field("used_cpu_user");
  if (!Number.isFinite(seconds)) throw new Error("INFO cpu has no used_cpu_sys / used_cpu_user");
  return seconds;
}

/** Reads the "before" figure now; a failed read is logged and leaves the measure out (null), never the run. */
export async function startRedisCpuMeasure(redisUrl: string): Promise<RedisCpuMeasure> {
  const redis = connectRedis(redisUrl, { maxRetriesPerRequest: 2 });
  const failed = (error: unknown) => {
    log(`Redis CPU not measured: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  };
  const before = await redisCpuSeconds(redis).catch(failed);
  return {
    async finish(applied) {
      try {
        if (before === null) return null;
        return redisCpu((await redisCpuSeconds(redis)) - before, applied);
      } catch (error) {
        return failed(error);
      } finally {
        redis.disconnect();
      }
    },
  };
}

export function redisCpu(cpuSeconds: number, applied: number): RedisCpu {
  const us = applied > 0 ? Math.round((cpuSeconds * 1e7) / applied) / 10 : null;
  return {
    cpuSeconds: Math.round(cpuSeconds * 1000) / 1000,
    applied,
    usPerApplied: us,
    paymentsPerCoreSecond: us === null || us === 0 ? null : Math.round(1e6 / us),
    note: NOTE,
  };
}

/** "Redis CPU: 14.2 µs per applied payment (60,000 payments, 0.852 s; one core carries 70,423/s at this cost)" */
export function redisCpuLine(cpu: RedisCpu): string {
  const per = cpu.usPerApplied === null ? "n/a" : `${cpu.usPerApplied} µs`;
  const carries =
    cpu.paymentsPerCoreSecond === null
      ? ""
      : `; one core carries ${formatCount(cpu.paymentsPerCoreSecond)}/s at this cost`;
  return `Redis CPU: ${per} per applied payment, everything counted (${formatCount(cpu.applied)} payments, ${cpu.cpuSeconds} s${carries})`;
}
