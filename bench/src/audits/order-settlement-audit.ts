// Was every accepted order paid exactly once, by the payment the bench sent for it? Compares the orders the
// 202s returned and the payments sent for them with the order rows (and the payments naming each) on the
// shards.

export interface OrderSettlementRow {
  id: string;
  status: string;
  paymentId: string | null;
  /** Payment rows naming this order, and how many of them succeeded. */
  payments: number;
  succeededPayments: number;
}

export interface OrderSettlementAudit {
  orders: number;
  rows: number;
  /** Accepted orders without a row; rows no 202 confirmed. */
  missing: number;
  unconfirmed: number;
  /** Accepted orders by their status on the shard. */
  statuses: Record<string, number>;
  /** Accepted orders with exactly one succeeded payment, the one the order row names. */
  paidOnce: number;
  /** Accepted orders with more than one succeeded payment. */
  paidTwice: number;
  /** Accepted orders whose row names a payment the bench did not send for it. */
  paidByAnother: number;
  ok: boolean;
}

/** `payments`: id of each accepted payment -> the order it paid. */
export function auditSettlement(
  orderIds: readonly string[],
  payments: ReadonlyMap<string, string>,
  rows: readonly OrderSettlementRow[],
): OrderSettlementAudit {
  const accepted = new Set(orderIds);
  const statuses: Record<string, number> = {};
  let matched = 0;
  let unconfirmed = 0;
  let paidOnce = 0;
  let paidTwice = 0;
  let paidByAnother = 0;
  for (const row of rows) {
    if (!accepted.has(row.id)) {
      unconfirmed++;
      continue;
    }
    matched++;
    statuses[row.status] = (statuses[row.status] ?? 0) + 1;
    const ours = row.paymentId !== null && payments.get(row.paymentId) === row.id;
    if (row.paymentId !== null && !ours) paidByAnother++;
    if (row.succeededPayments > 1) paidTwice++;
    else if (row.succeededPayments === 1 && row.status === "paid" && ours) paidOnce++;
  }
  const missing = accepted.size - matched;
  return {
    orders: orderIds.length,
    rows: rows.length,
    missing,
    unconfirmed,
    statuses,
    paidOnce,
    paidTwice,
    paidByAnother,
    ok:
      missing === 0 &&
      unconfirmed === 0 &&
      accepted.size === orderIds.length &&
      paidOnce === orderIds.length &&
      paidTwice === 0 &&
      paidByAnother === 0,
  };
}
