// Schemas of the coupon routes. Cross-field rules the schema cannot say (a percent above 100, an end before
// the start, a date that does not exist) are checked by the route and answered the same way.
import Type, { type Static, type TUnsafe } from "typebox";
import { DISCOUNT_TYPES, MAX_COUPON_QUANTITY } from "../coupon-definition.ts";
import { COUPON_ID_PATTERN } from "../coupon-id.ts";
import { OPERATION_ID_PATTERN } from "../operation-id.ts";
import { FAILURE_REASONS, OPERATION_STATUSES } from "../operation-status.ts";
import { MAX_AMOUNT, requestUserIdSchema, stringEnum } from "./operation-schemas.ts";

/** RFC 3339 with an explicit offset: a time without one would depend on the server's zone. */
export const TIMESTAMP_PATTERN =
  "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,3})?(Z|[+-]\\d{2}:\\d{2})$";

/** Printable text: no control characters (they end up in logs and admin screens). */
export const PRINTABLE_TEXT_PATTERN = "^[^\\u0000-\\u001F\\u007F]+$";

export const timestampSchema = Type.String({ pattern: TIMESTAMP_PATTERN });
/** Written as a type list (not anyOf) so a response serializes it the way it always has. */
export const nullableStringSchema = Type.Unsafe<string | null>({ type: ["string", "null"] }) as TUnsafe<
  string | null
> & { type: ["string", "null"] };

export const couponCreateRequestSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: PRINTABLE_TEXT_PATTERN }),
    quantity: Type.Integer({ minimum: 1, maximum: MAX_COUPON_QUANTITY }),
    startsAt: Type.Optional(timestampSchema),
    endsAt: Type.Optional(timestampSchema),
    discount: Type.Object(
      {
        type: stringEnum(DISCOUNT_TYPES),
        value: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type CouponCreateRequest = Static<typeof couponCreateRequestSchema>;

export const couponIdParamsSchema = Type.Object({ couponId: Type.String({ pattern: COUPON_ID_PATTERN }) });
export type CouponIdParams = Static<typeof couponIdParamsSchema>;

export const couponIssueRequestSchema = Type.Object(
  { userId: requestUserIdSchema },
  { additionalProperties: false },
);
export type CouponIssueRequest = Static<typeof couponIssueRequestSchema>;

const couponProperties = {
  id: Type.String(),
  name: Type.String(),
  quantity: Type.Integer(),
  startsAt: nullableStringSchema,
  endsAt: nullableStringSchema,
  discount: Type.Object({ type: Type.String(), value: Type.Integer() }),
  createdAt: Type.String(),
};

export const couponResponseSchema = Type.Object(couponProperties);

export const couponWithCountsResponseSchema = Type.Object({
  ...couponProperties,
  issued: Type.Integer(),
  remaining: Type.Integer(),
});

export const couponIssueAcceptedSchema = Type.Object({
  id: Type.String({ pattern: OPERATION_ID_PATTERN }),
  status: Type.Literal("pending"),
});

export const couponIssueResponseSchema = Type.Object({
  id: Type.String(),
  couponId: Type.String(),
  userId: Type.String(),
  status: stringEnum(OPERATION_STATUSES),
  failureReason: Type.Optional(stringEnum(FAILURE_REASONS)),
  createdAt: Type.String(),
  completedAt: Type.Optional(Type.String()),
});

export const userCouponsResponseSchema = Type.Object({
  userId: Type.String(),
  coupons: Type.Array(
    Type.Object({
      id: Type.String(),
      couponId: Type.String(),
      status: Type.String(),
      usedAt: nullableStringSchema,
      createdAt: Type.String(),
      issuedAt: Type.String(),
    }),
  ),
});
