// Provider payments at the HTTP edge and in the stream: money the shop took at its own payment provider
// (Stripe, Toss, Adyen, ...), reported so the order is marked paid without a wallet. The request's fields are
// the message's (operation-message-schemas.ts), so the two cannot drift.
import Type, { type Static } from "typebox";
import { PROVIDER_PAYMENT_ID_PATTERN } from "../operation-id.ts";
import { FAILURE_REASONS, OPERATION_STATUSES } from "../operation-status.ts";
import { amountSchema, stringEnum } from "./operation-schemas.ts";

/** A provider's name as the shop spells it: lower case, so `Stripe` and `stripe` cannot be two providers. */
export const PROVIDER_PATTERN = "^[a-z0-9][a-z0-9_.-]{0,39}$";
/** The provider's id of the charge (a Stripe PaymentIntent, a Toss paymentKey): visible ASCII, no spaces. */
export const PROVIDER_REFERENCE_PATTERN = "^[\\x21-\\x7E]{1,200}$";

export const providerPaymentFields = {
  provider: Type.String({ pattern: PROVIDER_PATTERN }),
  reference: Type.String({ pattern: PROVIDER_REFERENCE_PATTERN }),
  /** What the provider took, in the deployment's minor unit: must be the order's amount. */
  amount: amountSchema,
};

export const providerPaymentRequestSchema = Type.Object(providerPaymentFields, {
  additionalProperties: false,
});
export type ProviderPaymentRequest = Static<typeof providerPaymentRequestSchema>;

export const providerPaymentAcceptedResponseSchema = Type.Object({
  id: Type.String({ pattern: PROVIDER_PAYMENT_ID_PATTERN }),
  status: Type.Literal("pending"),
});

export const providerPaymentResponseSchema = Type.Object({
  id: Type.String(),
  orderId: Type.String(),
  /** The order's user, once the worker found the order (the request names only the order). */
  userId: Type.Optional(Type.String()),
  provider: Type.String(),
  reference: Type.String(),
  amount: Type.Integer(),
  currency: Type.String(),
  status: stringEnum(OPERATION_STATUSES),
  failureReason: Type.Optional(stringEnum(FAILURE_REASONS)),
  createdAt: Type.String(),
  completedAt: Type.Optional(Type.String()),
});
export type ProviderPaymentView = Static<typeof providerPaymentResponseSchema>;
