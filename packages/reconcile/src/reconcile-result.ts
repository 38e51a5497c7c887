// The "reconcile drift" figures of a run, kept where the intake's /metrics reads them
// (floodgate_reconcile_drift_found and _unrepaired), so the drift alert can fire on a one-shot command.
import type { QueueKeys } from "@floodgate/queue";
import type { Redis } from "ioredis";
import type { ReconcileReport } from "./reconcile.ts";

export async function recordReconcileResult(
  redis: Pick<Redis, "hset">,
  keys: QueueKeys,
  report: ReconcileReport,
  finishedAtMs = Date.now(),
): Promise<void> {
  await redis.hset(keys.reconcileResult(), {
    drift: report.drift,
    unrepaired: report.unrepaired,
    finishedAt: finishedAtMs,
  });
}
