export type {
  DriftFinding,
  DriftKind,
  DriftOutcome,
  RedisRepair,
  SlotRead,
  SlotWrite,
} from "./drift-finding.ts";
export { inFlight, type QueueActivity, readQueueActivity, sameActivity } from "./queue-activity.ts";
export {
  type ReconcileOptions,
  type ReconcileProgress,
  type ReconcileReport,
  reconcile,
} from "./reconcile.ts";
export { findingLine, queueLine, reconcileExitCode, reportLines, summaryLine } from "./reconcile-report.ts";
export { recordReconcileResult } from "./reconcile-result.ts";
export type { ReconcileStores } from "./reconcile-stores.ts";
