// The intake and worker processes under the start command, read from /proc (Linux): which pid to SIGKILL, and
// how much memory the intake holds (the overload fault's "memory bounded").
import { readdirSync, readFileSync } from "node:fs";

export type ProcessRole = "intake" | "worker";

const SCRIPTS: Record<ProcessRole, string> = {
  intake: "apps/intake/src/server.ts",
  worker: "apps/worker/src/main.ts",
};

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: fields after the last ")" are fixed.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[1]);
  } catch {
    return null;
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

/** Pids of the start command's children running `role`'s script, oldest first. */
export function childPids(supervisorPid: number, role: ProcessRole): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    if (parentOf(pid) === supervisorPid && commandLine(pid).includes(SCRIPTS[role])) pids.push(pid);
  }
  return pids.sort((a, b) => a - b);
}

/** Resident memory of a process in MiB; 0 when it is gone. */
export function rssMiB(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Math.round((Number(match[1]) / 1024) * 10) / 10 : 0;
  } catch {
    return 0;
  }
}
