// Records the events of one shard batch, inside the transaction that makes its operations final (called once
// by apply-shard-batch.ts): every event goes to the events feed (`events`, GET /v1/events) and those some
// enabled endpoint subscribes to also to the webhook outbox, so an event is committed with its operation or
// not at all, and a worker killed after the commit loses none (the relay, in any worker, sends it later).
//
// Hot path: ONE statement per shard batch that decided anything (the feed's insert and the outbox's in one
// statement), none for a batch without an event. `subscribed` is the worker's cached endpoint list
// (webhook-subscriptions.ts): it costs an endpoint created less than a second ago its first events, which
// the feed still has.
import type { ShardDatabase } from "@floodgate/db";
import { providerPaymentBody, webhookEventId } from "@floodgate/domain";
import { sql, type Transaction } from "kysely";
import { finalOrderJson } from "../events/final-order-json.ts";
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

/** Which event types some enabled endpoint wants (written to the outbox too); empty: none. */
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
  const completedAt = Date.now();
  const rows: OutboxRow[] = [];
  const add = (operationId: string, type: string, data: Record<string, unknown> | null) => {
    rows.push({
      eventId: webhookEventId(operationId, type),
      type,
      operationId,
      data: data === null ? null : JSON.stringify(data),
    });
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
  // An event already recorded is the same event (its id is derived): neither table gets it again. An order
  // that ended in this transaction is read here, by Postgres (its row is this transaction's). The fallback
  // `{id}` only keeps a hand-deleted order from failing the batch forever.
  await sql`
    with v as (
      select * from unnest(${rows.map((r) => r.eventId)}::text[], ${rows.map((r) => r.type)}::text[],
                           ${rows.map((r) => r.operationId)}::text[], ${rows.map((r) => r.data)}::jsonb[])
        as v(event_id, event_type, operation_id, data)
    ), recorded as (
      insert into events (event_id, event_type, operation_id, data)
      select v.event_id, v.event_type, v.operation_id,
             coalesce(v.data, ${finalOrderJson(sql`v.operation_id`)}, jsonb_build_object('id', v.operation_id))
      from v
      on conflict (event_id) do nothing
      returning event_id, event_type, operation_id, data, created_at
    )
    insert into webhook_outbox (event_id, event_type, operation_id, data, created_at)
    select event_id, event_type, operation_id, data, created_at from recorded
    where event_type = any(${[...subscribed]}::text[])
    on conflict (event_id) do nothing`.execute(trx);
  return 1;
}
