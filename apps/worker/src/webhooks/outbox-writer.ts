// Writes the webhook outbox rows of one shard batch, inside the transaction that makes its operations final
// (called once by apply-shard-batch.ts): an event is committed with its operation or not at all, so a worker
// killed after the commit loses none (the relay, in any worker, sends it later).
//
// Hot path: at most ONE statement per shard batch, and none when no enabled endpoint subscribes to any event
// of the batch (`subscribed`, the worker's cached endpoint list, webhook-subscriptions.ts). Writing every
// event and letting the relay drop the unwanted would cost each deployment without webhooks an insert of
// every operation twice over; the cache costs an endpoint created less than a second ago its first events.
import type { ShardDatabase } from "@floodgate/db";
import { providerPaymentBody, webhookEventId } from "@floodgate/domain";
import { sql, type Transaction } from "kysely";
import type { ProviderPaymentDecision } from "../provider-payments/provider-payment-ledger.ts";
import {
  type DecidedOperation,
  EVENT_BY_OUTCOME,
  ORDER_EVENT_BY_STATUS,
  operationData,
  PROVIDER_PAYMENT_ORPHANED,
} from "./event-catalogue.ts";

export interface BatchOutcomes {
  decisions: DecidedOperation[];
  /** Orders that ended in this transaction (apply-order-ends.ts' endedNow). */
  endedOrders: { orderId: string; status: "cancelled" | "expired" }[];
  /** Provider payments decided now: the order each paid, or the charge each orphaned (none by default). */
  providerPayments?: ProviderPaymentDecision[];
}

/** Which event types some enabled endpoint wants; empty: nothing is written. */
export type SubscribedTypes = ReadonlySet<string>;

interface OutboxRow {
  eventId: string;
  type: string;
  operationId: string;
  data: string | null;
}

/** Returns the statements sent (0 or 1). */
export async function writeWebhookOutbox(
  trx: Transaction<ShardDatabase>,
  outcomes: BatchOutcomes,
  subscribed: SubscribedTypes,
): Promise<number> {
  if (subscribed.size === 0) return 0;
  const completedAt = Date.now();
  const rows: OutboxRow[] = [];
  const add = (operationId: string, type: string, data: Record<string, unknown> | null) => {
    if (subscribed.has(type)) {
      rows.push({
        eventId: webhookEventId(operationId, type),
        type,
        operationId,
        data: data === null ? null : JSON.stringify(data),
      });
    }
  };
  for (const decided of outcomes.decisions) {
    const type = EVENT_BY_OUTCOME[decided.message.kind]?.[decided.status];
    if (type !== undefined) add(decided.message.id, type, operationData(decided, completedAt));
    const orderId = decided.message.orderId;
    if (decided.message.kind === "payment" && decided.status === "succeeded" && typeof orderId === "string") {
      add(orderId, ORDER_EVENT_BY_STATUS.paid, null);
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
  // An event already in the outbox is the same event (its id is derived): nothing to add.
  await sql`
    insert into webhook_outbox (event_id, event_type, operation_id, data)
    select * from unnest(${rows.map((r) => r.eventId)}::text[], ${rows.map((r) => r.type)}::text[],
                         ${rows.map((r) => r.operationId)}::text[], ${rows.map((r) => r.data)}::jsonb[])
    on conflict (event_id) do nothing`.execute(trx);
  return 1;
}
