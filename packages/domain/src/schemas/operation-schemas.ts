// Schemas for the HTTP edge, one per body and response, written once with TypeBox: Fastify validates requests
// with them and serializes responses through them (so nothing undeclared leaks out), and the TypeScript types
// are derived from them (`Static`), so a field is added in one place.
import Type, { type Static, type TUnsafe } from "typebox";
import { OPERATION_ID_PATTERN, ORDER_ID_PATTERN } from "../operation-id.ts";
import { FAILURE_REASONS, OPERATION_STATUSES } from "../operation-status.ts";

export const USER_ID_PATTERN = "^[A-Za-z0-9_-]{1,64}$";
export const MAX_AMOUNT = 1_000_000_000_000;

export const userIdSchema = Type.String({ pattern: USER_ID_PATTERN });
/** Minor units of the deployment's currency. */
export const amountSchema = Type.Integer({ minimum: 1, maximum: MAX_AMOUNT });
export const currencySchema = Type.String({ pattern: "^[A-Z]{3}$" });
/**
 * A string that is one of `values`, typed as their union. Written as `{type, enum}` (what the edge has always
 * validated and serialized); the TypeScript type keeps that shape too, for code that walks a schema.
 */
export const stringEnum = <const Values extends readonly string[]>(values: Values) =>
  Type.Unsafe<Values[number]>({ type: "string", enum: values }) as TUnsafe<Values[number]> & {
    type: "string";
    enum: Values;
  };

/**
 * A body's userId is optional where a shopper may call: their user comes from their token (a differing one
 * is refused by the route); a shop server's key names the user it acts for. Queue messages always carry it.
 */
export const requestUserIdSchema = Type.Optional(userIdSchema);

export const paymentRequestSchema = Type.Object(
  {
    userId: requestUserIdSchema,
    amount: amountSchema,
    currency: Type.Optional(currencySchema),
    orderId: Type.Optional(Type.String({ pattern: ORDER_ID_PATTERN })),
  },
  { additionalProperties: false },
);
export type PaymentRequest = Static<typeof paymentRequestSchema>;

export const depositRequestSchema = Type.Object(
  { amount: amountSchema, currency: Type.Optional(currencySchema) },
  { additionalProperties: false },
);
export type DepositRequest = Static<typeof depositRequestSchema>;

export const userIdParamsSchema = Type.Object({ userId: userIdSchema });
export type UserIdParams = Static<typeof userIdParamsSchema>;

export const operationIdParamsSchema = Type.Object({ id: Type.String({ maxLength: 64 }) });
export type OperationIdParams = Static<typeof operationIdParamsSchema>;

/** `Idempotency-Key`: 1-255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;

export const acceptedResponseSchema = Type.Object({
  id: Type.String({ pattern: OPERATION_ID_PATTERN }),
  status: Type.Literal("pending"),
});

export const operationResponseSchema = Type.Object({
  id: Type.String(),
  userId: Type.String(),
  amount: Type.Integer(),
  currency: Type.String(),
  orderId: Type.Optional(Type.String()),
  status: stringEnum(OPERATION_STATUSES),
  failureReason: Type.Optional(stringEnum(FAILURE_REASONS)),
  createdAt: Type.String(),
  completedAt: Type.Optional(Type.String()),
});

export const walletResponseSchema = Type.Object({
  userId: Type.String(),
  balance: Type.Integer(),
  currency: Type.String(),
});

export const problemResponseSchema = Type.Object({
  type: Type.String(),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.Optional(Type.String()),
  instance: Type.Optional(Type.String()),
  code: Type.Optional(Type.String()),
  field: Type.Optional(Type.String()),
  retryable: Type.Optional(Type.Boolean()),
  /** The request's id, as echoed in its x-request-id header and logged as reqId. */
  requestId: Type.Optional(Type.String()),
  existingId: Type.Optional(Type.String()),
  /** waiting_room_required: the room to join, where, and why the request's admission did not count. */
  roomId: Type.Optional(Type.String()),
  joinUrl: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String()),
  /** order_spans_rooms: the rooms whose products the order names. */
  rooms: Type.Optional(Type.Array(Type.String())),
  /** out_of_stock: the lines that could not be reserved. */
  lines: Type.Optional(
    Type.Array(
      Type.Partial(
        Type.Object({
          line: Type.Integer(),
          productId: Type.String(),
          requested: Type.Integer(),
          available: Type.Integer(),
        }),
      ),
    ),
  ),
  errors: Type.Optional(
    Type.Array(
      Type.Partial(Type.Object({ field: Type.String(), pointer: Type.String(), detail: Type.String() })),
    ),
  ),
});
