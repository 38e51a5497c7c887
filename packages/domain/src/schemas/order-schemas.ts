// Schemas of the order routes: what the schema can say is said here; that a coupon is the user's, that stock
// suffices, that a product exists, only the reserving script can tell.
import Type, { type Static } from "typebox";
import { COUPON_ISSUE_ID_PATTERN, ORDER_ID_PATTERN } from "../operation-id.ts";
import {
  MAX_LINE_QUANTITY,
  MAX_ORDER_LINES,
  ORDER_LIST_DEFAULT_LIMIT,
  ORDER_LIST_MAX_LIMIT,
  ORDER_STATUSES,
  STORED_ORDER_STATUSES,
} from "../order-definition.ts";
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
  /** Paid at the shop's payment provider (paymentId is then the provider payment's `ppy_` id). */
  provider: Type.Optional(Type.String()),
  /** The provider's id of the charge that paid the order. */
  reference: Type.Optional(Type.String()),
  createdAt: Type.String(),
  expiresAt: Type.String(),
  updatedAt: Type.Optional(Type.String()),
});

/**
 * GET /v1/orders. Every value of a query string arrives as text: the route reads `limit` as a number before
 * this schema validates it (strict elsewhere, "20" is not 20; here there is no other spelling). Unknown
 * parameters are refused, so a misspelt filter (`user_id`) is not a listing of every order.
 */
export const orderListQuerySchema = Type.Object(
  {
    userId: requestUserIdSchema,
    status: Type.Optional(stringEnum(STORED_ORDER_STATUSES)),
    after: Type.Optional(
      Type.String({
        pattern: "^[A-Za-z0-9_-]{1,200}$",
        description: "The `nextCursor` of the page before: the listing goes on after the last order it gave.",
      }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: ORDER_LIST_MAX_LIMIT, default: ORDER_LIST_DEFAULT_LIMIT }),
    ),
  },
  { additionalProperties: false },
);
export type OrderListQuery = Static<typeof orderListQuerySchema>;

export const orderListResponseSchema = Type.Object({
  data: Type.Array(orderResponseSchema, {
    description: "Newest first: `createdAt` descending, then `id` descending.",
  }),
  nextCursor: Type.Unsafe<string | null>({
    type: ["string", "null"],
    description:
      "The `after` of the next page; null when no order was left after this page as the shards answered it.",
  }),
});
