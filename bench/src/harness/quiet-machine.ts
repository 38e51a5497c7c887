// Benchmarks run one after another inherit the last one's load: its services wind down and the 1-minute load
// average takes about a minute to fall. A run waits for a quiet machine first (load average below 1, where
// the summary would otherwise warn), up to a limit, so back-to-back runs measure the same machine.
import os from "node:os";
import { log } from "./progress-line.ts";

export const QUIET_LOAD_AVERAGE = 1;
const CHECK_EVERY_MS = 5000;
const REPORT_EVERY_MS = 15_000;

/** Resolves with the seconds waited; gives up (the summary then warns) after `limitMs`. */
export async function waitForQuietMachine(
  limitMs = 180_000,
  loadAverage: () => number = () => os.loadavg()[0] ?? 0,
): Promise<number> {
  const startedAt = Date.now();
  let reportedAt = Number.NEGATIVE_INFINITY;
  while (loadAverage() >= QUIET_LOAD_AVERAGE && Date.now() - startedAt < limitMs) {
    if (Date.now() - reportedAt >= REPORT_EVERY_MS) {
      reportedAt = Date.now();
      log(
        `waiting for a quiet machine: 1-minute load average ${loadAverage().toFixed(2)} (starts below ${QUIET_LOAD_AVERAGE}, at most ${Math.round(limitMs / 1000)} s)`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, CHECK_EVERY_MS));
  }
  return Math.round((Date.now() - startedAt) / 1000);
}
