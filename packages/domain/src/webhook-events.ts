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
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** `evt_` + 32 hex digits of SHA-256("<operation id>:<type>"). */
export function webhookEventId(operationId: string, type: string): string {
  return `evt_${createHash("sha256").update(`${operationId}:${type}`).digest("hex").slice(0, 32)}`;
}
