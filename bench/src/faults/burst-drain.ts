// After a burst: wait (bounded) until its 2xx are on the shards, then audit it by count (burst-audit.ts).
import { log } from "../harness/progress-line.ts";
import { auditBurst, type BurstAudit } from "./burst-audit.ts";
import type { BurstThread } from "./burst-thread.ts";
import type { SystemRig } from "./fault-rig.ts";
import type { BurstCounts } from "./overload-burst.ts";
import { BURST_USER_PREFIX } from "./shop-funding.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface SettledBurst {
  audit: BurstAudit;
  /** Whether every 2xx reached its shard before the wait ended. */
  drained: boolean;
  drainSeconds: number;
}

/** Ends the thread, waits for the burst's rows (nothing moving for 45 s, or `timeoutSeconds`, ends the wait),
 * and audits. `counts` are the steps' counts (their timeouts and socket errors are the unknown outcomes). */
export async function settleBurst(
  rig: SystemRig,
  thread: BurstThread,
  amount: number,
  counts: readonly BurstCounts[],
  timeoutSeconds: number,
): Promise<SettledBurst> {
  const ids = await thread.finish();
  const started = Date.now();
  const deadline = started + timeoutSeconds * 1000;
  let last = -1;
  let movedAt = Date.now();
  let drained = false;
  while (Date.now() < deadline) {
    const applied = await rig.ledger.burstApplied(BURST_USER_PREFIX, amount);
    if (applied >= ids.length) {
      drained = true;
      break;
    }
    if (applied !== last) {
      last = applied;
      movedAt = Date.now();
    } else if (Date.now() - movedAt > 45_000) break;
    await sleep(1000);
  }
  const drainSeconds = Math.round((Date.now() - started) / 100) / 10;
  const unknown = counts.reduce((sum, c) => sum + c.timeouts + c.socketErrors + c.storeUnavailable, 0);
  const audit = auditBurst(ids, await rig.ledger.burstRowIds(BURST_USER_PREFIX, amount), unknown);
  log(
    `burst audit: ${audit.accepted} answered 2xx, ${audit.applied} applied, lost ${audit.lost}, twice ${audit.twice}, applied without a 2xx ${audit.appliedWithoutAnswer} (unknown outcomes ${unknown})`,
  );
  return { audit, drained, drainSeconds };
}
