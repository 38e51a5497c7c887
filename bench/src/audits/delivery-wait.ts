// Waits for a phase's accepted payments to be applied, then audits them. The row count alone can reach the
// target early: requests in flight when the load stopped add rows no 202 confirmed. So once the count is
// reached, the audit itself is repeated until no accepted id is missing (or nothing changes for 15 s).
import { waitForApplied } from "./applied-wait.ts";
import { auditDelivery, type DeliveryAudit } from "./delivery-audit.ts";
import type { ShardSet } from "./shard-set.ts";

const AUDIT_STALL_MS = 15_000;

export interface DeliveryOutcome {
  audit: DeliveryAudit;
  /** False when a bound (timeout, stall) ended the wait with accepted payments still missing. */
  allApplied: boolean;
  waitedMs: number;
}

export async function awaitDelivery(options: {
  label: string;
  shards: ShardSet;
  since: Date;
  acceptedIds: readonly string[];
  timeoutMs: number;
}): Promise<DeliveryOutcome> {
  const started = Date.now();
  await waitForApplied({
    label: options.label,
    shards: options.shards,
    table: "payments",
    since: options.since,
    target: options.acceptedIds.length,
    timeoutMs: options.timeoutMs,
  });
  const audit = async () =>
    auditDelivery(options.acceptedIds, await options.shards.paymentRows(options.since));
  let result = await audit();
  let lastChange = Date.now();
  while (
    result.missing > 0 &&
    Date.now() - started < options.timeoutMs &&
    Date.now() - lastChange < AUDIT_STALL_MS
  ) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const next = await audit();
    if (next.missing !== result.missing) lastChange = Date.now();
    result = next;
  }
  return { audit: result, allApplied: result.missing === 0, waitedMs: Date.now() - started };
}
