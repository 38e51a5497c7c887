// JSON Schemas of the coupon routes. Cross-field rules the schema cannot say (a percent above 100, an end
// before the start, a date that does not exist) are checked by the route and answered the same way.

import { DISCOUNT_TYPES, MAX_COUPON_QUANTITY } from "../coupon-definition.ts";
import { COUPON_ID_PATTERN } from "../coupon-id.ts";
import { OPERATION_ID_PATTERN } from "../operation-id.ts";
import { FAILURE_REASONS, OPERATION_STATUSES } from "../operation-status.ts";
import { MAX_AMOUNT, USER_ID_PATTERN } from "./operation-schemas.ts";

/** RFC 3339 with an explicit offset: a time without one would depend on the server's zone. */
export const TIMESTAMP_PATTERN =
  "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,3})?(Z|[+-]\\d{2}:\\d{2})$";

const timestamp = { type: "string", pattern: TIMESTAMP_PATTERN } as const;
const nullableTimestamp = { type: ["string", "null"] } as const;

export const couponCreateRequestSchema = {
  type: "object",
  additionalProperties: false,
  required: ["name", "quantity", "discount"],
  properties: {
    // Printable text: no control characters (they end up in logs and admin screens).
    name: { type: "string", minLength: 1, maxLength: 200, pattern: "^[^\\u0000-\\u001F\\u007F]+$" },
    quantity: { type: "integer", minimum: 1, maximum: MAX_COUPON_QUANTITY },
    startsAt: timestamp,
    endsAt: timestamp,
    discount: {
      type: "object",
      additionalProperties: false,
      required: ["type", "value"],
      properties: {
        type: { type: "string", enum: DISCOUNT_TYPES },
        value: { type: "integer", minimum: 1, maximum: MAX_AMOUNT },
      },
    },
  },
} as const;

export const couponIdParamsSchema = {
  type: "object",
  required: ["couponId"],
  properties: { couponId: { type: "string", pattern: COUPON_ID_PATTERN } },
} as const;

export const couponIssueRequestSchema = {
  type: "object",
  additionalProperties: false,
  // Optional: a shopper's user comes from the token; a server key names it (the route requires it then).
  properties: { userId: { type: "string", pattern: USER_ID_PATTERN } },
} as const;

const couponProperties = {
  id: { type: "string" },
  name: { type: "string" },
  quantity: { type: "integer" },
  startsAt: nullableTimestamp,
  endsAt: nullableTimestamp,
  discount: {
    type: "object",
    required: ["type", "value"],
    properties: { type: { type: "string" }, value: { type: "integer" } },
  },
  createdAt: { type: "string" },
} as const;

export const couponResponseSchema = {
  type: "object",
  required: ["id", "name", "quantity", "startsAt", "endsAt", "discount", "createdAt"],
  properties: couponProperties,
} as const;

export const couponWithCountsResponseSchema = {
  type: "object",
  required: [...couponResponseSchema.required, "issued", "remaining"],
  properties: { ...couponProperties, issued: { type: "integer" }, remaining: { type: "integer" } },
} as const;

export const couponIssueAcceptedSchema = {
  type: "object",
  required: ["id", "status"],
  properties: {
    id: { type: "string", pattern: OPERATION_ID_PATTERN },
    status: { type: "string", const: "pending" },
  },
} as const;

export const couponIssueResponseSchema = {
  type: "object",
  required: ["id", "couponId", "userId", "status", "createdAt"],
  properties: {
    id: { type: "string" },
    couponId: { type: "string" },
    userId: { type: "string" },
    status: { type: "string", enum: OPERATION_STATUSES },
    failureReason: { type: "string", enum: FAILURE_REASONS },
    createdAt: { type: "string" },
    completedAt: { type: "string" },
  },
} as const;

export const userCouponsResponseSchema = {
  type: "object",
  required: ["userId", "coupons"],
  properties: {
    userId: { type: "string" },
    coupons: {
      type: "array",
      items: {
        type: "object",
        required: ["id", "couponId", "status", "usedAt", "createdAt", "issuedAt"],
        properties: {
          id: { type: "string" },
          couponId: { type: "string" },
          status: { type: "string" },
          usedAt: { type: ["string", "null"] },
          createdAt: { type: "string" },
          issuedAt: { type: "string" },
        },
      },
    },
  },
} as const;
