// Records the events of one shard batch that its money statement did not (money-write.ts records the payments'
// and deposits' own), inside the transaction that makes its operations final (called once by
// apply-shard-batch.ts): an event is committed with its operation or not at all, so a worker killed after the
// commit loses none (the relay, in any worker, sends it later). What goes where: event-recording.ts.
//
// Hot path: a batch of payments and deposits alone sends nothing here; any other batch that decided something
// sends ONE statement. `subscribed` is the worker's cached endpoint list (webhook-subscriptions.ts): it costs an
// endpoint created less than a second ago its first webhooks, which the feed still has.
import type { ShardDatabase } from "@floodgate/db";
import { providerPaymentBody } from "@floodgate/domain";
import { sql, type Transaction } from "kysely";
import type { MoneyDecision } from "../payments/money-decisions.ts";
import type { ProviderPaymentDecision } from "../provider-payments/provider-payment-ledger.ts";
import {
  type DecidedOperation,
  ORDER_EVENT_BY_STATUS,
  PROVIDER_PAYMENT_ORPHANED,
} from "./event-catalogue.ts";
import { eventRow, ownEventRows, recordEventsCtes, type SubscribedTypes } from "./event-recording.ts";

export interface BatchOutcomes {
  /** Decided now, their own events still to record (not payments and deposits: money-write.ts records those). */
  decisions: DecidedOperation[];
  /** Payments and deposits decided now: their own events are recorded; a payment that paid an order raises
   * order.paid here, after the order's row is paid (Postgres reads it for the event's data). */
  moneyDecisions?: MoneyDecision[];
  /** Orders that ended in this transaction (apply-order-ends.ts' endedNow). */
  endedOrders: { orderId: string; status: "cancelled" | "expired" }[];
  /** Provider payments decided now: the order each paid, or the charge each orphaned (none by default). */
  providerPayments?: ProviderPaymentDecision[];
}

/** Returns the statements sent (0 or 1). */
export async function writeWebhookOutbox(
  trx: Transaction<ShardDatabase>,
  outcomes: BatchOutcomes,
  subscribed: SubscribedTypes,
): Promise<number> {
  const completedAt = Date.now();
  const rows = ownEventRows(outcomes.decisions, completedAt);
  const add = (operationId: string, type: string, data: Record<string, unknown> | null) => {
    rows.push(eventRow(operationId, type, data));
  };
  for (const { message, status } of outcomes.moneyDecisions ?? []) {
    if (message.kind === "payment" && status === "succeeded" && typeof message.orderId === "string") {
      add(message.orderId, ORDER_EVENT_BY_STATUS.paid, null);
    }
  }
  for (const decided of outcomes.providerPayments ?? []) {
    // A duplicate repeats a charge already told of: its first payment raised the event.
    if (decided.duplicateOf !== null) continue;
    if (decided.status === "succeeded") add(decided.message.orderId, ORDER_EVENT_BY_STATUS.paid, null);
    if (decided.orphaned) {
      add(
        decided.message.id,
        PROVIDER_PAYMENT_ORPHANED,
        providerPaymentBody({ ...decided.message, ...decided, completedAt }),
      );
    }
  }
  for (const ended of outcomes.endedOrders) add(ended.orderId, ORDER_EVENT_BY_STATUS[ended.status], null);
  if (rows.length === 0) return 0;
  await sql`with ${recordEventsCtes(rows, subscribed)} select 1`.execute(trx);
  return 1;
}
