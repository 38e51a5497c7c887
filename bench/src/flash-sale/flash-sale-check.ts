// A flash sale's checks come in two kinds. An audit is what the system must get right on any machine: FIFO
// order, every payment applied once, no guarded request past the room, no extra Redis round trip, nothing
// oversold. A performance target is what a loaded machine may miss: the join rate and its p99, the push delay,
// every socket holding a live position. A comparison of two checkouts (--compare-checkout) measures the second
// kind and fails on the first.
export type CheckKind = "audit" | "performance";

export interface SaleCheck {
  name: string;
  /** null: the check does not apply to this run (no WebSocket shoppers, say); it neither holds nor fails. */
  ok: boolean | null;
  detail: string;
  /** Absent in results written before checks had kinds. */
  kind?: CheckKind;
}

export const failedAudits = (checks: readonly SaleCheck[]): SaleCheck[] =>
  checks.filter((check) => check.kind === "audit" && check.ok === false);
