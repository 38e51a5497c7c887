// JSON Schemas of the order routes: what the schema can say is said here; that a coupon is the user's, that
// stock suffices, that a product exists, only the reserving script can tell.
import { COUPON_ISSUE_ID_PATTERN, ORDER_ID_PATTERN } from "../operation-id.ts";
import { MAX_LINE_QUANTITY, MAX_ORDER_LINES, ORDER_STATUSES } from "../order-definition.ts";
import { PRODUCT_ID_PATTERN } from "../product-id.ts";
import { USER_ID_PATTERN } from "./operation-schemas.ts";

export const orderCreateRequestSchema = {
  type: "object",
  additionalProperties: false,
  required: ["items"],
  properties: {
    userId: { type: "string", pattern: USER_ID_PATTERN },
    items: {
      type: "array",
      minItems: 1,
      maxItems: MAX_ORDER_LINES,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["productId", "quantity"],
        properties: {
          productId: { type: "string", pattern: PRODUCT_ID_PATTERN },
          quantity: { type: "integer", minimum: 1, maximum: MAX_LINE_QUANTITY },
        },
      },
    },
    couponIssueId: { type: "string", pattern: COUPON_ISSUE_ID_PATTERN },
  },
} as const;

export const orderIdParamsSchema = {
  type: "object",
  required: ["orderId"],
  properties: { orderId: { type: "string", pattern: ORDER_ID_PATTERN } },
} as const;

export const orderAcceptedResponseSchema = {
  type: "object",
  required: ["id", "status", "amount"],
  properties: {
    id: { type: "string" },
    status: { type: "string", const: "pending" },
    amount: { type: "integer" },
  },
} as const;

export const orderCancelAcceptedResponseSchema = {
  type: "object",
  required: ["id", "status"],
  properties: { id: { type: "string" }, status: { type: "string", const: "cancelling" } },
} as const;

const line = {
  type: "object",
  required: ["productId", "quantity", "unitPrice"],
  properties: {
    productId: { type: "string" },
    quantity: { type: "integer" },
    unitPrice: { type: "integer" },
  },
} as const;

export const orderResponseSchema = {
  type: "object",
  required: [
    "id",
    "userId",
    "status",
    "items",
    "subtotal",
    "discount",
    "amount",
    "currency",
    "createdAt",
    "expiresAt",
  ],
  properties: {
    id: { type: "string" },
    userId: { type: "string" },
    status: { type: "string", enum: ORDER_STATUSES },
    failureReason: { type: "string" },
    items: { type: "array", items: line },
    subtotal: { type: "integer" },
    discount: { type: "integer" },
    amount: { type: "integer" },
    currency: { type: "string" },
    couponIssueId: { type: "string" },
    paymentId: { type: "string" },
    createdAt: { type: "string" },
    expiresAt: { type: "string" },
    updatedAt: { type: "string" },
  },
} as const;
