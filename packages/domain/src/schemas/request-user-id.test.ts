import { Compile } from "typebox/compile";
import { describe, expect, it } from "vitest";
import { newOperationId } from "../operation-id.ts";
import { newProductId } from "../product-id.ts";
import { couponIssueRequestSchema } from "./coupon-schemas.ts";
import { moneyOperationMessageSchema } from "./operation-message-schemas.ts";
import { paymentRequestSchema } from "./operation-schemas.ts";
import { orderCreateRequestSchema } from "./order-schemas.ts";
import { ticketJoinRequestSchema } from "./room-schemas.ts";

// Where a shopper may call, the user comes from their token: a body's userId is optional, but when present it
// obeys the same rules as everywhere (the route refuses one that differs from the token's).
const bodies = {
  "POST /v1/payments": [paymentRequestSchema, { amount: 100 }],
  "POST /v1/orders": [orderCreateRequestSchema, { items: [{ productId: newProductId(), quantity: 1 }] }],
  "POST /v1/coupons/:couponId/issues": [couponIssueRequestSchema, {}],
  "POST /v1/rooms/:roomId/tickets": [ticketJoinRequestSchema, {}],
} as const;

describe.each(Object.entries(bodies))("%s", (_, [schema, body]) => {
  const check = Compile(schema);

  it("takes a body without userId, and one with a well-formed userId", () => {
    expect(check.Check(body)).toBe(true);
    expect(check.Check({ ...body, userId: "user_A-1" })).toBe(true);
  });

  it.each([
    ["an empty userId", ""],
    ["a 65-character userId", "u".repeat(65)],
    ["a userId with a space", "a b"],
    ["a numeric userId", 7],
    ["a null userId", null],
  ])("refuses %s", (_, userId) => {
    expect(check.Check({ ...body, userId })).toBe(false);
  });

  it("still refuses an unknown field", () => {
    expect(check.Check({ ...body, user: "user-1" })).toBe(false);
  });
});

it("a queue message still names its user", () => {
  const message = {
    v: 1,
    kind: "payment",
    id: newOperationId("payment", 1),
    userId: "user-1",
    amount: 1,
    currency: "KRW",
    createdAt: 1_763_780_000_000,
  };
  const check = Compile(moneyOperationMessageSchema);
  expect(check.Check(message)).toBe(true);
  const { userId: _, ...anonymous } = message;
  expect(check.Check(anonymous)).toBe(false);
});
