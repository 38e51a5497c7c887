// What a webhook delivery POSTs: `{id, type, createdAt, data}` (outbox-relay.ts), `data` being the operation's
// body as its GET route shows it (event-catalogue.ts). One schema per family of events, named in the OpenAPI
// document (its `webhooks`), and one entry per event type, so a type added to WEBHOOK_EVENT_TYPES without its
// schema does not compile.
import Type, { type TSchema } from "typebox";
import { FAILURE_REASONS, OPERATION_STATUSES } from "../operation-status.ts";
import type { WebhookEventType } from "../webhook-events.ts";
import { PING_EVENT_TYPE } from "../webhook-signature-schemes.ts";
import { couponIssueResponseSchema } from "./coupon-schemas.ts";
import { operationResponseSchema, stringEnum } from "./operation-schemas.ts";
import { orderResponseSchema } from "./order-schemas.ts";
import { providerPaymentResponseSchema } from "./provider-payment-schemas.ts";

const event = <const Types extends readonly WebhookEventType[], Data extends TSchema>(
  types: Types,
  data: Data,
) =>
  Type.Object({
    /** Derived from the operation and the type: a receiver de-duplicates by it. */
    id: Type.String({ pattern: "^evt_[0-9a-f]{32}$" }),
    type: stringEnum(types),
    /** When the event was written, with the operation's final state. */
    createdAt: Type.String(),
    data,
  });

export const paymentEventSchema = event(
  ["payment.succeeded", "payment.failed", "deposit.succeeded"] as const,
  operationResponseSchema,
);

/** order.awaiting_payment carries the order as accepted; the others as it ended. */
export const orderEventSchema = event(
  ["order.awaiting_payment", "order.paid", "order.cancelled", "order.expired"] as const,
  orderResponseSchema,
);

export const couponIssueEventSchema = event(["coupon.issued"] as const, couponIssueResponseSchema);

/** A refund as decided: its message's fields, the payment's user and what was given back (or asked). */
export const refundEventDataSchema = Type.Object({
  id: Type.String(),
  kind: Type.Literal("refund"),
  /** The payment's user; empty when the payment was not found. */
  userId: Type.String(),
  paymentId: Type.String(),
  amount: Type.Optional(Type.Integer()),
  currency: Type.String(),
  reason: Type.Optional(Type.String()),
  restock: Type.Optional(Type.Boolean()),
  status: stringEnum(OPERATION_STATUSES),
  failureReason: Type.Optional(stringEnum(FAILURE_REASONS)),
  createdAt: Type.String(),
  completedAt: Type.String(),
});

export const refundEventSchema = event(["refund.succeeded", "refund.failed"] as const, refundEventDataSchema);

/** Sent by POST /v1/webhook-endpoints/:id/test to that endpoint only, whatever it subscribes to. */
export const pingEventSchema = Type.Object({
  /** Drawn at random: each test is an event of its own. */
  id: Type.String({ pattern: "^evt_[0-9a-f]{32}$" }),
  type: Type.Literal(PING_EVENT_TYPE),
  createdAt: Type.String(),
  data: Type.Object({ endpointId: Type.String() }),
});
/** The provider payment that failed (its failureReason says why): the shop refunds it at its provider. */
export const providerPaymentOrphanedEventSchema = event(
  ["order.provider_payment_orphaned"] as const,
  providerPaymentResponseSchema,
);

/** A room's transition: which room, and when the tick that made it ran. */
export const roomEventSchema = event(
  ["room.queueing_started", "room.queueing_stopped", "room.sold_out", "room.closed"] as const,
  Type.Object({ roomId: Type.String(), at: Type.String() }),
);

/** A ticket the room admitted from its queue: its session lasts until expiresAt (or its order). */
export const ticketAdmittedEventSchema = event(
  ["ticket.admitted"] as const,
  Type.Object({
    roomId: Type.String(),
    ticketId: Type.String(),
    userId: Type.String(),
    admittedAt: Type.String(),
    expiresAt: Type.String(),
  }),
);

export const WEBHOOK_EVENT_SCHEMAS = {
  "payment.succeeded": paymentEventSchema,
  "payment.failed": paymentEventSchema,
  "deposit.succeeded": paymentEventSchema,
  "order.awaiting_payment": orderEventSchema,
  "order.paid": orderEventSchema,
  "order.cancelled": orderEventSchema,
  "order.expired": orderEventSchema,
  "order.provider_payment_orphaned": providerPaymentOrphanedEventSchema,
  "coupon.issued": couponIssueEventSchema,
  "refund.succeeded": refundEventSchema,
  "refund.failed": refundEventSchema,
  "room.queueing_started": roomEventSchema,
  "room.queueing_stopped": roomEventSchema,
  "room.sold_out": roomEventSchema,
  "room.closed": roomEventSchema,
  "ticket.admitted": ticketAdmittedEventSchema,
} as const satisfies Record<WebhookEventType, TSchema>;
