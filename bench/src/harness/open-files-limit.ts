// The soft limit on open files of this process (and of the children it starts, which inherit it): every socket
// a load generator holds is one. Read from /proc (Linux); null elsewhere or when unlimited, and then nothing
// is checked against it.
import { readFileSync } from "node:fs";

export function parseOpenFilesLimit(limits: string): number | null {
  const line = limits.split("\n").find((candidate) => candidate.startsWith("Max open files"));
  const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0];
  return soft === undefined || !/^\d+$/.test(soft) ? null : Number(soft);
}

export function openFilesLimit(): number | null {
  try {
    return parseOpenFilesLimit(readFileSync("/proc/self/limits", "utf8"));
  } catch {
    return null;
  }
}
