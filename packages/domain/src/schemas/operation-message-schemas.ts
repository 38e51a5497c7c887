// The messages that travel intake -> stream -> worker, described once: the worker decodes with these schemas
// compiled (operation-message.ts) and the types are derived from them. The bounds are the HTTP edge's: a
// message is the request it carries, whoever wrote it to the stream (the order and order-end scripts write
// theirs in Lua). Unknown fields are tolerated, as they always were: a newer intake may add one before every
// worker knows it, and that must not make its messages poison.
import Type, { type Static } from "typebox";
import { COUPON_ID_PATTERN } from "../coupon-id.ts";
import { OPERATION_ID_PATTERN, ORDER_ID_PATTERN } from "../operation-id.ts";
import { MAX_ORDER_LINES, ORDER_END_REASONS } from "../order-definition.ts";
import { amountSchema, currencySchema, MAX_AMOUNT, stringEnum, userIdSchema } from "./operation-schemas.ts";
import { couponIssueIdSchema, lineQuantitySchema, productIdSchema } from "./order-schemas.ts";
import { providerPaymentFields } from "./provider-payment-schemas.ts";
import { refundFields } from "./refund-schemas.ts";
import { ROOM_ID_PATTERN, TICKET_ID_SCHEMA_PATTERN } from "./room-schemas.ts";

export const MESSAGE_VERSION = 1;

/** Epoch ms, a safe integer. */
const epochMs = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

const messageBase = {
  v: Type.Literal(MESSAGE_VERSION),
  /** Its prefix names the kind (checked by the decoder: a schema cannot tie two fields). */
  id: Type.String({ pattern: OPERATION_ID_PATTERN }),
  userId: userIdSchema,
  /** Acceptance time at intake, epoch ms. */
  createdAt: epochMs,
};

/** A payment or a deposit: moves `amount` through the user's wallet. */
export const moneyOperationMessageSchema = Type.Object({
  ...messageBase,
  kind: Type.Union([Type.Literal("payment"), Type.Literal("deposit")]),
  amount: amountSchema,
  currency: currencySchema,
  orderId: Type.Optional(Type.String({ pattern: ORDER_ID_PATTERN })),
});
export type MoneyOperationMessage = Static<typeof moneyOperationMessageSchema>;

/** One first-come-first-served coupon, already reserved for the user in Redis; the worker records it. */
export const couponIssueMessageSchema = Type.Object({
  ...messageBase,
  kind: Type.Literal("coupon_issue"),
  couponId: Type.String({ pattern: COUPON_ID_PATTERN }),
  // Never present: a coupon issue moves no money, so one that carries an amount was meant to be something else.
  amount: Type.Optional(Type.Never()),
  currency: Type.Optional(Type.Never()),
});
export type CouponIssueMessage = Static<typeof couponIssueMessageSchema>;

export const orderLineSchema = Type.Object({
  productId: productIdSchema,
  quantity: lineQuantitySchema,
  /** Price per unit when the order was reserved (minor units). */
  unitPrice: amountSchema,
});
export type OrderLine = Static<typeof orderLineSchema>;

/**
 * An order whose lines Redis already reserved; `amount` = subtotal - discount, computed by the reserving
 * script from the prices it read (so the worker and the client agree on what the payment must be). That
 * equation is the decoder's to check.
 */
/** A waiting room's session: its room and its ticket. */
export const orderSessionSchema = Type.Object({
  roomId: Type.String({ pattern: ROOM_ID_PATTERN }),
  ticketId: Type.String({ pattern: TICKET_ID_SCHEMA_PATTERN }),
});
export type OrderSession = Static<typeof orderSessionSchema>;

export const orderMessageSchema = Type.Object({
  ...messageBase,
  kind: Type.Literal("order"),
  items: Type.Array(orderLineSchema, { minItems: 1, maxItems: MAX_ORDER_LINES }),
  discount: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  amount: Type.Integer({ minimum: 0, maximum: MAX_AMOUNT }),
  currency: currencySchema,
  couponIssueId: Type.Optional(couponIssueIdSchema),
  /** Epoch ms after which an unpaid order expires. */
  expiresAt: epochMs,
  /**
   * The waiting-room session the order was accepted with (its verified admission token's room and ticket):
   * the session ends when the order does (paid, cancelled, expired, failed), so the room admits the next.
   */
  session: Type.Optional(orderSessionSchema),
});
export type OrderMessage = Static<typeof orderMessageSchema>;

/** Ends an order that is still awaiting payment: stock and coupon go back. */
export const orderCancelMessageSchema = Type.Object({
  ...messageBase,
  kind: Type.Literal("order_cancel"),
  orderId: Type.String({ pattern: ORDER_ID_PATTERN }),
  reason: stringEnum(ORDER_END_REASONS),
});
export type OrderCancelMessage = Static<typeof orderCancelMessageSchema>;

/**
 * Gives back (part of) a succeeded payment. No userId: the intake knows only the payment id, whose bucket the
 * refund's id carries (same shard, same partition); the worker reads the user from the payment row.
 */
export const refundMessageSchema = Type.Object({
  v: messageBase.v,
  id: messageBase.id,
  createdAt: messageBase.createdAt,
  kind: Type.Literal("refund"),
  ...refundFields,
  currency: currencySchema,
});
export type RefundMessage = Static<typeof refundMessageSchema>;

/**
 * Money the shop took at its payment provider, for an order: no userId (the intake knows only the order, whose
 * bucket the id carries: same shard, same partition); the worker reads the user from the order row. No wallet
 * moves.
 */
export const providerPaymentMessageSchema = Type.Object({
  v: messageBase.v,
  id: messageBase.id,
  createdAt: messageBase.createdAt,
  kind: Type.Literal("provider_payment"),
  orderId: Type.String({ pattern: ORDER_ID_PATTERN }),
  ...providerPaymentFields,
  currency: currencySchema,
});
export type ProviderPaymentMessage = Static<typeof providerPaymentMessageSchema>;

export const operationMessageSchema = Type.Union([
  moneyOperationMessageSchema,
  couponIssueMessageSchema,
  orderMessageSchema,
  orderCancelMessageSchema,
  refundMessageSchema,
  providerPaymentMessageSchema,
]);
export type OperationMessage = Static<typeof operationMessageSchema>;
