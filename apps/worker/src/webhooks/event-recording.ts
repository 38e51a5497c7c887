// How a shard transaction records events: every event in the events feed (`events`, GET /v1/events) and those
// some enabled endpoint subscribes to in the webhook outbox too, as data-modifying CTEs a statement of the
// batch carries (the money statement, money-write.ts, or the batch's trailing one, outbox-writer.ts), so an
// event is committed with its operation or not at all and costs no round trip of its own on the hot path.
//
// The rows travel as ONE jsonb parameter (jsonb_to_recordset): node-postgres turns each JavaScript array into
// an array literal character by character (its escapeElement took 0.18 s of a worker's 1.45 s of event
// writing in a profiled flash sale), where JSON.stringify is native.
import { webhookEventId } from "@floodgate/domain";
import { type RawBuilder, sql } from "kysely";
import { finalOrderJson } from "../events/final-order-json.ts";
import { type DecidedOperation, EVENT_BY_OUTCOME, operationData } from "./event-catalogue.ts";

/** Which event types some enabled endpoint wants (written to the outbox too); empty: none. */
export type SubscribedTypes = ReadonlySet<string>;

/** One event, named as the tables' columns (the jsonb parameter's keys). */
export interface EventRow {
  event_id: string;
  event_type: string;
  operation_id: string;
  /** The event's data; null for an order's final state, which Postgres reads from the order's row. */
  data: Record<string, unknown> | null;
}

export function eventRow(operationId: string, type: string, data: Record<string, unknown> | null): EventRow {
  return { event_id: webhookEventId(operationId, type), event_type: type, operation_id: operationId, data };
}

/** The operations' own events (payment.succeeded, coupon.issued, ...), their data as of `completedAt`. */
export function ownEventRows(decisions: readonly DecidedOperation[], completedAt: number): EventRow[] {
  const rows: EventRow[] = [];
  for (const decided of decisions) {
    const type = EVENT_BY_OUTCOME[decided.message.kind]?.[decided.status];
    if (type !== undefined)
      rows.push(eventRow(decided.message.id, type, operationData(decided, completedAt)));
  }
  return rows;
}

/**
 * The CTEs (for a `with` list, no leading `with`) that record `rows`. An event already recorded is the same
 * event (its id is derived): neither table gets it again. An order that ended in this transaction is read by
 * Postgres (its row is this transaction's); the fallback `{id}` only keeps a hand-deleted order from failing
 * the batch forever. Postgres runs every data-modifying CTE to completion whether the statement reads it or not.
 */
export function recordEventsCtes(rows: EventRow[], subscribed: SubscribedTypes): RawBuilder<unknown> {
  // Rows that all carry their data (a batch of payments, a room's events) leave the order look-up out of the
  // statement: Postgres plans every statement it is sent, and that subquery is most of this one's plan.
  const data = rows.every((row) => row.data !== null)
    ? sql`v.data`
    : sql`coalesce(v.data, ${finalOrderJson(sql`v.operation_id`)}, jsonb_build_object('id', v.operation_id))`;
  const values = sql`event_values as (
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        as v(event_id text, event_type text, operation_id text, data jsonb)
    )`;
  const insert = sql`insert into events (event_id, event_type, operation_id, data)
      select v.event_id, v.event_type, v.operation_id, ${data}
      from event_values v
      on conflict (event_id) do nothing`;
  // No endpoint subscribes to any of the rows' types: the feed's insert alone, returning nothing. Postgres
  // keeps every row a data-modifying CTE returns until the statement ends, whether or not anything reads it.
  if (!rows.some((row) => subscribed.has(row.event_type))) {
    return sql`${values}, recorded_events as (${insert})`;
  }
  return sql`${values}, recorded_events as (
      ${insert}
      returning event_id, event_type, operation_id, data, created_at
    ), outboxed_events as (
      insert into webhook_outbox (event_id, event_type, operation_id, data, created_at)
      select event_id, event_type, operation_id, data, created_at from recorded_events
      where event_type = any(${[...subscribed]}::text[])
      on conflict (event_id) do nothing
    )`;
}
