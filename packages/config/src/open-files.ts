// The open files of this process against its soft limit: every connection, WebSocket and Redis or Postgres socket
// is one. Past the limit a server loses connections without a word (the intake's open-files-watch.ts says why),
// and a load generator fails its own connects. Read from /proc (Linux); null elsewhere, and when unlimited, and
// then nothing is checked against it. The soft limit is inherited by the children a process starts.
import { readFileSync } from "node:fs";
import { readdir } from "node:fs/promises";

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

/** Thrown by countOpenFiles when the process has no descriptor left to count with: it is at its limit. */
export class OpenFilesExhaustedError extends Error {
  constructor(cause: unknown) {
    super("no file descriptor left to count the open ones with: the process is at its open-files limit", {
      cause,
    });
    this.name = "OpenFilesExhaustedError";
  }
}

/**
 * How many files this process holds open now, or null where /proc cannot tell. Listing them takes a descriptor
 * of its own, so at the limit the count cannot be made: that throws OpenFilesExhaustedError, the one answer a
 * watcher must not mistake for "unknown".
 */
export async function countOpenFiles(): Promise<number | null> {
  try {
    // The listing's own descriptor is in it while it is read: not one of ours.
    return (await readdir("/proc/self/fd")).length - 1;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EMFILE" || code === "ENFILE") throw new OpenFilesExhaustedError(error);
    return null;
  }
}
