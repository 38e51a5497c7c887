// Did every accepted payment land exactly once? Compares the ids the 202s returned with the rows the shards
// hold for the phase, and derives the end-to-end latencies (completed_at - created_at) from the same rows.
import { type LatencySummary, summarizeLatencies } from "../harness/latency-summary.ts";

export interface AppliedRow {
  id: string;
  shard: number;
  status: string;
  createdMs: number;
  completedMs: number;
}

export interface DeliveryAudit {
  accepted: number;
  /** Rows in the shards for this phase, matched or not. */
  rows: number;
  /** Accepted ids found in exactly one row. */
  appliedOnce: number;
  missing: number;
  /** Accepted ids found in more than one row (on different shards; a primary key rules out one shard). */
  duplicated: number;
  /** The same id returned by two 202s: two requests were given one payment. */
  duplicateAcceptedIds: number;
  /** Rows whose id no 202 returned, e.g. requests that timed out at the client after intake accepted them. */
  unconfirmedRows: number;
  exactlyOnce: boolean;
  succeeded: number;
  failed: number;
  endToEndMs: LatencySummary | null;
  /** max(completed_at) - max(created_at) over accepted rows: how long the last accepted payment waited. */
  lastAcceptToLastAppliedMs: number | null;
  firstAppliedMs: number | null;
  lastAppliedMs: number | null;
}

export function auditDelivery(acceptedIds: readonly string[], rows: readonly AppliedRow[]): DeliveryAudit {
  const accepted = new Set(acceptedIds);
  const occurrences = new Map<string, number>();
  const latencies: number[] = [];
  let unconfirmedRows = 0;
  let succeeded = 0;
  let failed = 0;
  let maxCreated = Number.NEGATIVE_INFINITY;
  let minCompleted = Number.POSITIVE_INFINITY;
  let maxCompleted = Number.NEGATIVE_INFINITY;
  for (const row of rows) {
    if (!accepted.has(row.id)) {
      unconfirmedRows++;
      continue;
    }
    occurrences.set(row.id, (occurrences.get(row.id) ?? 0) + 1);
    if (row.status === "succeeded") succeeded++;
    else failed++;
    latencies.push(row.completedMs - row.createdMs);
    maxCreated = Math.max(maxCreated, row.createdMs);
    minCompleted = Math.min(minCompleted, row.completedMs);
    maxCompleted = Math.max(maxCompleted, row.completedMs);
  }
  let appliedOnce = 0;
  let duplicated = 0;
  for (const count of occurrences.values()) {
    if (count === 1) appliedOnce++;
    else duplicated++;
  }
  const missing = accepted.size - occurrences.size;
  const duplicateAcceptedIds = acceptedIds.length - accepted.size;
  const any = latencies.length > 0;
  return {
    accepted: acceptedIds.length,
    rows: rows.length,
    appliedOnce,
    missing,
    duplicated,
    duplicateAcceptedIds,
    unconfirmedRows,
    exactlyOnce: missing === 0 && duplicated === 0 && duplicateAcceptedIds === 0,
    succeeded,
    failed,
    endToEndMs: summarizeLatencies(latencies),
    lastAcceptToLastAppliedMs: any ? Math.round(maxCompleted - maxCreated) : null,
    firstAppliedMs: any ? Math.round(minCompleted) : null,
    lastAppliedMs: any ? Math.round(maxCompleted) : null,
  };
}
