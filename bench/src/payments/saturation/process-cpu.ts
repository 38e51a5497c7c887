// Cpu seconds of chosen processes (a target's intake or peer, Redis) from /proc/<pid>/stat, and of Redis as it
// counts itself (INFO cpu): a target's cost per accepted request, apart from everything else on the shared
// machine. Linux only; elsewhere the /proc readings are null.
import { readFileSync } from "node:fs";
import type { Redis } from "ioredis";
import { clockTicks, parseStatTicks } from "../../harness/cpu-meter.ts";

/** utime + stime of the processes, in seconds; null when none could be read. */
export function processCpuSeconds(pids: readonly number[]): number | null {
  let ticks = 0;
  let read = 0;
  for (const pid of pids) {
    try {
      const parsed = parseStatTicks(readFileSync(`/proc/${pid}/stat`, "utf8"));
      if (parsed) {
        ticks += parsed.ticks;
        read++;
      }
    } catch {
      // Gone, or no /proc.
    }
  }
  return read === 0 ? null : ticks / clockTicks();
}

/** used_cpu_sys + used_cpu_user of INFO cpu: Redis's own count, main thread and the rest. */
export async function redisCpuSeconds(redis: Redis): Promise<number> {
  const info = await redis.info("cpu");
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(info)?.[1] ?? Number.NaN);
  return field("used_cpu_sys") + field("used_cpu_user");
}

/** Redis's pid (INFO server) when it is a process of this machine, for its /proc reading; else null. */
export async function localRedisPid(redis: Redis): Promise<number | null> {
  const info = await redis.info("server");
  const pid = Number(/^process_id:(\d+)/m.exec(info)?.[1]);
  if (!Number.isInteger(pid)) return null;
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "redis-server" ? pid : null;
  } catch {
    return null;
  }
}
