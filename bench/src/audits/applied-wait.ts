// Waits until the workers have written `target` rows created since `since`. Bounded three ways: the target
// is reached, the count stops moving for `stallMs`, or `timeoutMs` passes; the caller reports which.
import { formatCount, startProgress } from "../harness/progress-line.ts";
import type { OperationTable, ShardSet } from "./shard-set.ts";

export interface AppliedWait {
  applied: number;
  complete: boolean;
  waitedMs: number;
  /** When the count reached the target (epoch ms), as seen by this poll; null if it did not. */
  reachedAt: number | null;
}

export async function waitForApplied(options: {
  label: string;
  shards: ShardSet;
  table: OperationTable;
  since: Date;
  target: number;
  timeoutMs: number;
  stallMs?: number;
  pollMs?: number;
}): Promise<AppliedWait> {
  const started = Date.now();
  const stallMs = options.stallMs ?? 30_000;
  // Each poll counts rows by reading every shard's table through (15 ms per 30,000 payments per shard on the
  // 2-vCPU machine): five polls a second took up to 30 % of a core from the drain being measured. Reported
  // times come from the rows' own timestamps, so a coarser poll changes none of them; it only notices later.
  const pollMs = options.pollMs ?? 1000;
  let applied = 0;
  let lastChange = started;
  let previousReport = { at: started, applied: 0 };
  const stopProgress = startProgress(() => {
    const now = Date.now();
    const rate = ((applied - previousReport.applied) * 1000) / Math.max(1, now - previousReport.at);
    previousReport = { at: now, applied };
    return `${options.label}: ${formatCount(applied)} of ${formatCount(options.target)} applied (${formatCount(rate)}/s)`;
  });
  try {
    while (true) {
      const count = await options.shards.count(options.table, options.since);
      const now = Date.now();
      if (count !== applied) lastChange = now;
      applied = count;
      if (applied >= options.target)
        return { applied, complete: true, waitedMs: now - started, reachedAt: now };
      if (now - started > options.timeoutMs || now - lastChange > stallMs) {
        return { applied, complete: false, waitedMs: now - started, reachedAt: null };
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  } finally {
    stopProgress();
  }
}
