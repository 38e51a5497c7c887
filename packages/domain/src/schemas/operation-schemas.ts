// JSON Schemas for the HTTP edge, one per body and response. Fastify validates requests with them and
// serializes responses through them, so nothing undeclared leaks out.
import { OPERATION_ID_PATTERN, ORDER_ID_PATTERN } from "../operation-id.ts";
import { FAILURE_REASONS, OPERATION_STATUSES } from "../operation-status.ts";

export const USER_ID_PATTERN = "^[A-Za-z0-9_-]{1,64}$";
export const MAX_AMOUNT = 1_000_000_000_000;

const userId = { type: "string", pattern: USER_ID_PATTERN } as const;
const amount = { type: "integer", minimum: 1, maximum: MAX_AMOUNT } as const;

export const paymentRequestSchema = {
  type: "object",
  additionalProperties: false,
  required: ["amount"],
  properties: {
    userId,
    amount,
    currency: { type: "string", pattern: "^[A-Z]{3}$" },
    orderId: { type: "string", pattern: ORDER_ID_PATTERN },
  },
} as const;

export const depositRequestSchema = {
  type: "object",
  additionalProperties: false,
  required: ["amount"],
  properties: { amount, currency: { type: "string", pattern: "^[A-Z]{3}$" } },
} as const;

export const userIdParamsSchema = {
  type: "object",
  required: ["userId"],
  properties: { userId },
} as const;

export const operationIdParamsSchema = {
  type: "object",
  required: ["id"],
  properties: { id: { type: "string", maxLength: 64 } },
} as const;

/** `Idempotency-Key`: 1-255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;

export const acceptedResponseSchema = {
  type: "object",
  required: ["id", "status"],
  properties: {
    id: { type: "string", pattern: OPERATION_ID_PATTERN },
    status: { type: "string", const: "pending" },
  },
} as const;

export const operationResponseSchema = {
  type: "object",
  required: ["id", "userId", "amount", "currency", "status", "createdAt"],
  properties: {
    id: { type: "string" },
    userId: { type: "string" },
    amount: { type: "integer" },
    currency: { type: "string" },
    orderId: { type: "string" },
    status: { type: "string", enum: OPERATION_STATUSES },
    failureReason: { type: "string", enum: FAILURE_REASONS },
    createdAt: { type: "string" },
    completedAt: { type: "string" },
  },
} as const;

export const walletResponseSchema = {
  type: "object",
  required: ["userId", "balance", "currency"],
  properties: { userId: { type: "string" }, balance: { type: "integer" }, currency: { type: "string" } },
} as const;

export const problemResponseSchema = {
  type: "object",
  required: ["type", "title", "status"],
  properties: {
    type: { type: "string" },
    title: { type: "string" },
    status: { type: "integer" },
    detail: { type: "string" },
    instance: { type: "string" },
    code: { type: "string" },
    field: { type: "string" },
    retryable: { type: "boolean" },
    existingId: { type: "string" },
    /** waiting_room_required: the room to join, where, and why the request's admission did not count. */
    roomId: { type: "string" },
    joinUrl: { type: "string" },
    reason: { type: "string" },
    /** out_of_stock: the lines that could not be reserved. */
    lines: {
      type: "array",
      items: {
        type: "object",
        properties: {
          line: { type: "integer" },
          productId: { type: "string" },
          requested: { type: "integer" },
          available: { type: "integer" },
        },
      },
    },
    errors: {
      type: "array",
      items: {
        type: "object",
        properties: { field: { type: "string" }, pointer: { type: "string" }, detail: { type: "string" } },
      },
    },
  },
} as const;
