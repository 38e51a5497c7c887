// Schemas of the order routes: what the schema can say is said here; that a coupon is the user's, that stock
// suffices, that a product exists, only the reserving script can tell.
import Type, { type Static } from "typebox";
import { COUPON_ISSUE_ID_PATTERN, ORDER_ID_PATTERN } from "../operation-id.ts";
import { MAX_LINE_QUANTITY, MAX_ORDER_LINES, ORDER_STATUSES } from "../order-definition.ts";
import { PRODUCT_ID_PATTERN } from "../product-id.ts";
import { requestUserIdSchema, stringEnum } from "./operation-schemas.ts";

export const productIdSchema = Type.String({ pattern: PRODUCT_ID_PATTERN });
export const lineQuantitySchema = Type.Integer({ minimum: 1, maximum: MAX_LINE_QUANTITY });
export const couponIssueIdSchema = Type.String({ pattern: COUPON_ISSUE_ID_PATTERN });

export const orderCreateRequestSchema = Type.Object(
  {
    userId: requestUserIdSchema,
    items: Type.Array(
      Type.Object(
        { productId: productIdSchema, quantity: lineQuantitySchema },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_ORDER_LINES },
    ),
    couponIssueId: Type.Optional(couponIssueIdSchema),
  },
  { additionalProperties: false },
);
export type OrderCreateRequest = Static<typeof orderCreateRequestSchema>;

export const orderIdParamsSchema = Type.Object({ orderId: Type.String({ pattern: ORDER_ID_PATTERN }) });
export type OrderIdParams = Static<typeof orderIdParamsSchema>;

export const orderAcceptedResponseSchema = Type.Object({
  id: Type.String(),
  status: Type.Literal("pending"),
  amount: Type.Integer(),
});

export const orderCancelAcceptedResponseSchema = Type.Object({
  id: Type.String(),
  status: Type.Literal("cancelling"),
});

const line = Type.Object({ productId: Type.String(), quantity: Type.Integer(), unitPrice: Type.Integer() });

export const orderResponseSchema = Type.Object({
  id: Type.String(),
  userId: Type.String(),
  status: stringEnum(ORDER_STATUSES),
  failureReason: Type.Optional(Type.String()),
  items: Type.Array(line),
  subtotal: Type.Integer(),
  discount: Type.Integer(),
  amount: Type.Integer(),
  currency: Type.String(),
  couponIssueId: Type.Optional(Type.String()),
  paymentId: Type.Optional(Type.String()),
  createdAt: Type.String(),
  expiresAt: Type.String(),
  updatedAt: Type.Optional(Type.String()),
});
