// Where the cpu went during a phase: every process of the machine read from /proc/<pid>/stat at the start and
// the end, and the difference grouped by what the process is (the intake, the workers, Redis, Postgres, the
// load generator: this bench process and its threads). On 2 shared vCPUs this is what a figure is made of, so
// results carry it. Linux only: elsewhere (no /proc) the meter reports null. A process that starts and ends
// inside the window is missed, one that ends early counts until its last reading.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";

export type CpuGroup = "intake" | "workers" | "redis" | "postgres" | "loadGenerator" | "other";

export interface CpuUsage {
  windowS: number;
  /** Per group, cpu seconds per second of the window in % of one core (200 = both cores of 2). */
  percentOfOneCore: Record<CpuGroup, number>;
  totalPercent: number;
  cores: number;
}

interface ProcessReading {
  ticks: number;
  group: CpuGroup;
}

let ticksPerSecond: number | undefined;
/** Clock ticks per second of /proc/<pid>/stat's times (getconf CLK_TCK). */
export function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** What a process is, from its command line and name; exported for the tests. */
export function classifyProcess(pid: number, commandLine: string, name: string): CpuGroup {
  // This process, and wrk when --generator wrk runs it as a child.
  if (pid === process.pid || name === "wrk") return "loadGenerator";
  if (commandLine.includes("apps/intake/src/server.ts")) return "intake";
  if (commandLine.includes("apps/worker/src/main.ts")) return "workers";
  if (name === "redis-server") return "redis";
  if (name === "postgres" || commandLine.startsWith("postgres:")) return "postgres";
  return "other";
}

/** utime + stime of /proc/<pid>/stat; the name in parentheses may hold spaces, so fields count after it. */
export function parseStatTicks(stat: string): { name: string; ticks: number } | null {
  const open = stat.indexOf("(");
  const close = stat.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  const fields = stat.slice(close + 2).split(" ");
  // After the name: state(3) ppid(4) ... utime(14) stime(15), i.e. indexes 11 and 12 here.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return null;
  return { name: stat.slice(open + 1, close), ticks: utime + stime };
}

function readAll(): Map<number, ProcessReading> | null {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return null;
  }
  const readings = new Map<number, ProcessReading>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    try {
      const parsed = parseStatTicks(readFileSync(`/proc/${pid}/stat`, "utf8"));
      if (!parsed) continue;
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      readings.set(pid, { ticks: parsed.ticks, group: classifyProcess(pid, commandLine, parsed.name) });
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return readings;
}

export interface CpuMeter {
  stop(): CpuUsage | null;
}

export function startCpuMeter(cores = os.availableParallelism()): CpuMeter {
  const startedAt = performance.now();
  const first = readAll();
  return {
    stop() {
      const last = readAll();
      if (!first || !last) return null;
      const windowS = (performance.now() - startedAt) / 1000;
      const percentOfOneCore: Record<CpuGroup, number> = {
        intake: 0,
        workers: 0,
        redis: 0,
        postgres: 0,
        loadGenerator: 0,
        other: 0,
      };
      for (const [pid, reading] of last) {
        const before = first.get(pid)?.ticks ?? 0;
        percentOfOneCore[reading.group] += Math.max(0, reading.ticks - before);
      }
      let totalPercent = 0;
      for (const group of Object.keys(percentOfOneCore) as CpuGroup[]) {
        const percent = (percentOfOneCore[group] / clockTicks() / windowS) * 100;
        percentOfOneCore[group] = Math.round(percent * 10) / 10;
        totalPercent += percent;
      }
      return {
        windowS: Math.round(windowS * 10) / 10,
        percentOfOneCore,
        totalPercent: Math.round(totalPercent * 10) / 10,
        cores,
      };
    },
  };
}

/** "cpu over 30 s, % of one core: intake 51, workers 19, ..., other 2; 162 of 200" */
export function describeCpuUsage(usage: CpuUsage | null): string {
  if (!usage) return "cpu use: not measured (no /proc)";
  const p = usage.percentOfOneCore;
  const parts = [
    `intake ${p.intake}`,
    `workers ${p.workers}`,
    `Redis ${p.redis}`,
    `Postgres ${p.postgres}`,
    `load generator ${p.loadGenerator}`,
    `other ${p.other}`,
  ];
  return `cpu over ${usage.windowS} s, % of one core: ${parts.join(", ")}; ${usage.totalPercent} of ${usage.cores * 100}`;
}
