// What makes a result reproducible: the commit (and whether the tree had uncommitted changes), the machine,
// and a file name that sorts by time. Results are committed; README figures quote them.
import { execFileSync } from "node:child_process";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO_ROOT } from "./child-service.ts";

export const RESULTS_DIR = path.join(REPO_ROOT, "bench", "results");

export interface CommitInfo {
  commit: string | null;
  dirty: boolean | null;
}

export function commitInfo(): CommitInfo {
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: REPO_ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  let commit: string | null = null;
  let dirty: boolean | null = null;
  try {
    commit = git("rev-parse", "--short", "HEAD");
  } catch {
    // No commit yet, or not a git checkout.
  }
  try {
    // Result files written by earlier runs are not changes to the code under test.
    dirty = git("status", "--porcelain", "--", ".", ":(exclude)bench/results").length > 0;
  } catch {}
  return { commit, dirty };
}

export function machineInfo() {
  const cpus = os.cpus();
  return {
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    cpuModel: cpus[0]?.model.trim() ?? "unknown",
    cpuCount: os.availableParallelism(),
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    loadAverageAtStart: os.loadavg().map((n) => Math.round(n * 100) / 100),
  };
}

/** ISO 8601 basic format (no colons, so the name is valid everywhere): 20251122T024000Z. */
export function fileTimestamp(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}Z$/, "Z");
}

/** Writes via a .tmp file and a rename, so a crash never leaves a half-written result. */
export function writeResult(fileName: string, result: unknown): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const target = path.join(RESULTS_DIR, fileName);
  writeFileSync(`${target}.tmp`, `${JSON.stringify(result, null, 2)}\n`);
  renameSync(`${target}.tmp`, target);
  return path.relative(REPO_ROOT, target);
}
