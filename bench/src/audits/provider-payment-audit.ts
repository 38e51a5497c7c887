// Was every provider payment the fault suite's clients had accepted applied exactly once? Each accepted key's
// payment must have its row; each charge (provider, reference) one original row; each order at most one charge
// that paid it, named on the order; each refused charge that took the shopper's money (orphaned) its
// order.provider_payment_orphaned event; and no wallet payment for any of these orders. Pure, so it is tested.

/** One provider payment the bench sent (its Idempotency-Key), and what the intake answered. */
export interface ProviderPaymentKey {
  reference: string;
  orderId: string;
  /** Operation ids from the 2xx answers (one, unless an idempotency record was forgotten). */
  ids: string[];
  accepted: boolean;
}

export interface ProviderPaymentRow {
  id: string;
  orderId: string;
  reference: string;
  status: string;
  failureReason: string | null;
  duplicateOf: string | null;
}

export interface ProviderOrderRow {
  id: string;
  status: string;
  providerReference: string | null;
}

export interface ProviderPaymentReads {
  payments: ProviderPaymentRow[];
  orders: ProviderOrderRow[];
  /** Ids of the provider payments an order.provider_payment_orphaned event names. */
  orphanEvents: string[];
  /** Wallet payments naming one of these orders: must be none. */
  walletPayments: number;
}

export interface ProviderPaymentAudit {
  keys: number;
  accepted: number;
  /** Accepted keys whose payment has no row. */
  lost: number;
  /** Charges recorded as two originals, or orders paid by two charges. */
  appliedTwice: number;
  /** Orders marked paid by a provider charge (exactly once). */
  providerPaid: number;
  /** Succeeded charges whose order does not say it is paid by them, and orders naming a charge that did not
   * succeed: a payment half applied. */
  paidNotRecorded: number;
  /** Refused charges that took the shopper's money, with their event; and those without one. */
  orphaned: number;
  orphanedWithoutEvent: number;
  /** Repeats of a charge already recorded (same provider and reference): one payment, no second effect. */
  duplicates: number;
  failureReasons: Record<string, number>;
  walletPayments: number;
  ok: boolean;
  examples: {
    lost: string[];
    appliedTwice: string[];
    paidNotRecorded: string[];
    orphanedWithoutEvent: string[];
  };
}

/** Refusals that leave the provider's charge paying nothing (the worker's ORPHANING). */
export const ORPHANING_REASONS: ReadonlySet<string> = new Set([
  "order_not_payable",
  "order_already_paid",
  "amount_mismatch",
  "order_not_found",
]);
const PAID_STATUSES: ReadonlySet<string> = new Set(["paid", "refunded", "partially_refunded"]);
const EXAMPLES = 5;

export function auditProviderPayments(
  keys: readonly ProviderPaymentKey[],
  reads: ProviderPaymentReads,
): ProviderPaymentAudit {
  const audit: ProviderPaymentAudit = {
    keys: keys.length,
    accepted: 0,
    lost: 0,
    appliedTwice: 0,
    providerPaid: 0,
    paidNotRecorded: 0,
    orphaned: 0,
    orphanedWithoutEvent: 0,
    duplicates: 0,
    failureReasons: {},
    walletPayments: reads.walletPayments,
    ok: false,
    examples: { lost: [], appliedTwice: [], paidNotRecorded: [], orphanedWithoutEvent: [] },
  };
  const example = (list: string[], what: string) => {
    if (list.length < EXAMPLES) list.push(what);
  };
  const rowIds = new Set(reads.payments.map((row) => row.id));
  for (const key of keys) {
    if (!key.accepted) continue;
    audit.accepted++;
    if (!key.ids.some((id) => rowIds.has(id))) {
      audit.lost++;
      example(audit.examples.lost, key.reference);
    }
  }
  const originals = reads.payments.filter((row) => row.duplicateOf === null);
  audit.duplicates = reads.payments.length - originals.length;
  const originalsByReference = countBy(originals, (row) => row.reference);
  for (const [reference, n] of originalsByReference) {
    if (n < 2) continue;
    audit.appliedTwice++;
    example(audit.examples.appliedTwice, reference);
  }
  const succeeded = originals.filter((row) => row.status === "succeeded");
  for (const [orderId, n] of countBy(succeeded, (row) => row.orderId)) {
    if (n < 2) continue;
    audit.appliedTwice++;
    example(audit.examples.appliedTwice, orderId);
  }
  const orders = new Map(reads.orders.map((order) => [order.id, order]));
  for (const row of succeeded) {
    const order = orders.get(row.orderId);
    if (order && PAID_STATUSES.has(order.status) && order.providerReference === row.reference) continue;
    audit.paidNotRecorded++;
    example(audit.examples.paidNotRecorded, row.id);
  }
  const succeededReferences = new Set(succeeded.map((row) => `${row.orderId}\n${row.reference}`));
  for (const order of reads.orders) {
    if (order.providerReference === null) continue;
    if (succeededReferences.has(`${order.id}\n${order.providerReference}`)) audit.providerPaid++;
    else {
      audit.paidNotRecorded++;
      example(audit.examples.paidNotRecorded, order.id);
    }
  }
  const events = new Set(reads.orphanEvents);
  for (const row of originals) {
    if (row.status === "succeeded") continue;
    const reason = row.failureReason ?? "unknown";
    audit.failureReasons[reason] = (audit.failureReasons[reason] ?? 0) + 1;
    if (!ORPHANING_REASONS.has(reason)) continue;
    if (events.has(row.id)) audit.orphaned++;
    else {
      audit.orphanedWithoutEvent++;
      example(audit.examples.orphanedWithoutEvent, row.id);
    }
  }
  audit.ok =
    audit.lost === 0 &&
    audit.appliedTwice === 0 &&
    audit.paidNotRecorded === 0 &&
    audit.orphanedWithoutEvent === 0 &&
    audit.walletPayments === 0;
  return audit;
}

function countBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(keyOf(item), (counts.get(keyOf(item)) ?? 0) + 1);
  return counts;
}
