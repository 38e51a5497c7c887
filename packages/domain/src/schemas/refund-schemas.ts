// Refunds at the HTTP edge and in the stream: the request's fields are the message's (refund-message in
// operation-message-schemas.ts), so the two cannot drift.
import Type, { type Static } from "typebox";
import { PAYMENT_ID_PATTERN, REFUND_ID_PATTERN } from "../operation-id.ts";
import { FAILURE_REASONS, OPERATION_STATUSES } from "../operation-status.ts";
import { amountSchema, currencySchema, stringEnum } from "./operation-schemas.ts";

export const MAX_REFUND_REASON_LENGTH = 500;

export const refundFields = {
  paymentId: Type.String({ pattern: PAYMENT_ID_PATTERN }),
  /** Omitted: everything the payment still has to give back. */
  amount: Type.Optional(amountSchema),
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_REFUND_REASON_LENGTH })),
  /** Return the order's units to stock: only with a refund that ends the order's payment in full. */
  restock: Type.Optional(Type.Boolean()),
};

export const refundRequestSchema = Type.Object(
  {
    ...refundFields,
    // A provider payment's id (`ppy_`) is taken too, to be refused with its own code: the shop refunds it at its
    // provider (provider_payment_not_refundable), which a pattern's 400 would not say.
    paymentId: Type.String({ pattern: "^(pay|ppy)_[0-9A-HJKMNP-TV-Z]{26}$" }),
    currency: Type.Optional(currencySchema),
  },
  { additionalProperties: false },
);
export type RefundRequest = Static<typeof refundRequestSchema>;

export const refundAcceptedResponseSchema = Type.Object({
  id: Type.String({ pattern: REFUND_ID_PATTERN }),
  status: Type.Literal("pending"),
});

export const refundResponseSchema = Type.Object({
  id: Type.String(),
  paymentId: Type.String(),
  /** What was asked; once a full refund succeeded, what it gave back. Absent while a full refund is pending. */
  amount: Type.Optional(Type.Integer()),
  currency: Type.String(),
  reason: Type.Optional(Type.String()),
  restock: Type.Boolean(),
  status: stringEnum(OPERATION_STATUSES),
  failureReason: Type.Optional(stringEnum(FAILURE_REASONS)),
  createdAt: Type.String(),
  completedAt: Type.Optional(Type.String()),
});
export type RefundView = Static<typeof refundResponseSchema>;
