// The webhook event types a shop can subscribe to, and how an event's id is made. The id is derived from the
// operation and the type, never drawn at random: an operation applied again (a redelivered batch, a relay
// that ran twice) yields the same id, so a receiver de-duplicating by id sees each event once.
import { createHash } from "node:crypto";

export const WEBHOOK_EVENT_TYPES = [
  "payment.succeeded",
  "payment.failed",
  "deposit.succeeded",
  "order.awaiting_payment",
  "order.paid",
  "order.cancelled",
  "order.expired",
  // A provider payment that could not pay its order (expired or cancelled first, paid by another reference,
  // another amount): the shopper's money was taken at the provider, and the shop refunds it there.
  "order.provider_payment_orphaned",
  "coupon.issued",
  // Reserved for the refund operation kind: listed so endpoints may subscribe before it ships.
  "refund.succeeded",
  "refund.failed",
  // A waiting room's transitions (room-events.lua appends them in the tick that makes them).
  "room.queueing_started",
  "room.queueing_stopped",
  "room.sold_out",
  // Reserved for a room's endsAt: listed so endpoints may subscribe before it ships.
  "room.closed",
  // One per ticket the room admits from its queue: many, so recorded only while an endpoint subscribes to it.
  "ticket.admitted",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The room events (room.* and ticket.admitted): a room's stream, drained by the workers, is their source. */
export const ROOM_EVENT_TYPES = [
  "room.queueing_started",
  "room.queueing_stopped",
  "room.sold_out",
  "room.closed",
  "ticket.admitted",
] as const satisfies readonly WebhookEventType[];
export type RoomEventType = (typeof ROOM_EVENT_TYPES)[number];

/**
 * Types recorded (in the events feed too) only while some enabled endpoint names them in its `events`: one
 * event per shopper admitted would flood the feed of a shop that never asked for them.
 */
export const OPT_IN_EVENT_TYPES: ReadonlySet<WebhookEventType> = new Set(["ticket.admitted"]);

/** `evt_` + 32 hex digits of SHA-256("<operation id>:<type>"). */
export function webhookEventId(operationId: string, type: string): string {
  return `evt_${createHash("sha256").update(`${operationId}:${type}`).digest("hex").slice(0, 32)}`;
}
