import { describe, expect, it } from "vitest";
import { newCouponId } from "./coupon-id.ts";
import { newOperationId } from "./operation-id.ts";
import {
  decodeOperationMessage,
  encodeMessageBody,
  encodeOperationMessage,
  MessageDecodeError,
  MONEY_BODY_FIELDS,
} from "./operation-message.ts";
import { newProductId } from "./product-id.ts";
import type { CouponIssueMessage, OperationMessage } from "./schemas/operation-message-schemas.ts";

const payment: OperationMessage = {
  v: 1,
  kind: "payment",
  id: newOperationId("payment", 17, 1_763_780_000_000),
  userId: "user_A-1",
  amount: 12_345,
  currency: "KRW",
  orderId: "ord_01KAAAAAAAAAAAAAAAAAAAAAAA",
  createdAt: 1_763_780_000_000,
};
const { orderId: _, ...deposit0 } = payment;
const deposit: OperationMessage = { ...deposit0, kind: "deposit", id: newOperationId("deposit", 17) };

const encodedWith = (changes: Record<string, unknown>) => JSON.stringify({ ...payment, ...changes });

describe("encodeOperationMessage / decodeOperationMessage", () => {
  it("round-trips a payment and a deposit", () => {
    expect(decodeOperationMessage(encodeOperationMessage(payment))).toEqual(payment);
    expect(decodeOperationMessage(encodeOperationMessage(deposit))).toEqual(deposit);
  });

  it("accepts the bounds of amount and userId", () => {
    for (const changes of [{ amount: 1 }, { amount: 1_000_000_000_000 }, { userId: "u".repeat(64) }]) {
      expect(decodeOperationMessage(encodedWith(changes))).toMatchObject(changes);
    }
  });

  it.each([
    ["not JSON", "{"],
    ["empty", ""],
    ["JSON null", "null"],
    ["a JSON string", '"payment"'],
    ["a JSON number", "42"],
    ["a JSON array", "[]"],
    ["no version", encodedWith({ v: undefined })],
    ["another version", encodedWith({ v: 2 })],
    ["the version as a string", encodedWith({ v: "1" })],
    ["a missing id", encodedWith({ id: undefined })],
    ["a malformed id", encodedWith({ id: "pay_nope" })],
    ["an id of another kind", encodedWith({ id: newOperationId("deposit", 17) })],
    ["an unknown kind", encodedWith({ kind: "refund" })],
    ["a missing userId", encodedWith({ userId: undefined })],
    ["an empty userId", encodedWith({ userId: "" })],
    ["a 65-character userId", encodedWith({ userId: "u".repeat(65) })],
    ["a userId with a space", encodedWith({ userId: "a b" })],
    ["a numeric userId", encodedWith({ userId: 7 })],
    ["amount zero", encodedWith({ amount: 0 })],
    ["a negative amount", encodedWith({ amount: -5 })],
    ["a fractional amount", encodedWith({ amount: 1.5 })],
    ["amount as a string", encodedWith({ amount: "100" })],
    ["amount over 10^12", encodedWith({ amount: 1_000_000_000_001 })],
    ["an unsafe amount", encodedWith({ amount: 2 ** 60 })],
    ["a missing currency", encodedWith({ currency: undefined })],
    ["a numeric currency", encodedWith({ currency: 410 })],
    ["an empty currency", encodedWith({ currency: "" })],
    ["a lowercase currency", encodedWith({ currency: "krw" })],
    ["a numeric orderId", encodedWith({ orderId: 9 })],
    ["a missing createdAt", encodedWith({ createdAt: undefined })],
    ["createdAt as an ISO string", encodedWith({ createdAt: "2026-11-22T00:00:00Z" })],
    ["createdAt zero", encodedWith({ createdAt: 0 })],
    ["an unsafe createdAt", encodedWith({ createdAt: 2 ** 60 })],
    ["a fractional createdAt", encodedWith({ createdAt: 1.5 })],
  ])("rejects %s", (_, raw) => {
    expect(() => decodeOperationMessage(raw)).toThrow(MessageDecodeError);
  });

  it("names the problem in the error", () => {
    expect(() => decodeOperationMessage(encodedWith({ amount: 0 }))).toThrow(
      /undecodable operation message: bad amount/,
    );
    expect(() => decodeOperationMessage("{")).toThrow(/not JSON/);
    expect(() => decodeOperationMessage(encodedWith({ currency: undefined }))).toThrow(/bad currency/);
    expect(() => decodeOperationMessage(encodedWith({ id: "pay_nope" }))).toThrow(/bad id or kind/);
    expect(() => decodeOperationMessage(encodedWith({ v: 2 }))).toThrow(/unknown version 2/);
  });

  it("tolerates a field it does not know (a newer intake may add one before every worker knows it)", () => {
    expect(decodeOperationMessage(encodedWith({ traceId: "t-1" }))).toMatchObject({
      ...payment,
      traceId: "t-1",
    });
  });
});

describe("coupon issue messages", () => {
  const issue: CouponIssueMessage = {
    v: 1,
    kind: "coupon_issue",
    id: newOperationId("coupon_issue", 17, 1_763_780_000_000),
    userId: "user_A-1",
    couponId: newCouponId(1_763_780_000_000),
    createdAt: 1_763_780_000_000,
  };
  const issueWith = (changes: Record<string, unknown>) => JSON.stringify({ ...issue, ...changes });

  it("round-trip", () => {
    expect(decodeOperationMessage(encodeOperationMessage(issue))).toEqual(issue);
  });

  it.each([
    ["a missing couponId", issueWith({ couponId: undefined })],
    ["a malformed couponId", issueWith({ couponId: "cpn_nope" })],
    ["an operation id as couponId", issueWith({ couponId: newOperationId("payment", 1) })],
    ["a numeric couponId", issueWith({ couponId: 7 })],
    ["an amount", issueWith({ amount: 100 })],
    ["a currency", issueWith({ currency: "KRW" })],
    ["a payment id", issueWith({ id: newOperationId("payment", 17) })],
    ["the kind of a payment", issueWith({ kind: "payment" })],
    ["a bad userId", issueWith({ userId: "a b" })],
    ["a missing createdAt", issueWith({ createdAt: undefined })],
  ])("rejects %s", (_, raw) => {
    expect(() => decodeOperationMessage(raw)).toThrow(MessageDecodeError);
  });

  it("names the money field a coupon issue must not carry", () => {
    expect(() => decodeOperationMessage(issueWith({ amount: 100 }))).toThrow(/bad amount/);
    expect(() => decodeOperationMessage(issueWith({ couponId: "cpn_nope" }))).toThrow(/bad couponId/);
  });

  it("does not take a coupon issue's fields for a payment", () => {
    const { amount: _a, currency: _c, ...bare } = payment as { amount: number; currency: string };
    expect(() => decodeOperationMessage(JSON.stringify({ ...bare, couponId: issue.couponId }))).toThrow(
      /bad amount/,
    );
  });
});

describe("order messages", () => {
  const order: OperationMessage = {
    v: 1,
    kind: "order",
    id: newOperationId("order", 17, 1_763_780_000_000),
    userId: "buyer",
    items: [
      { productId: newProductId(), quantity: 2, unitPrice: 1_500 },
      { productId: newProductId(), quantity: 1, unitPrice: 1_000 },
    ],
    discount: 400,
    amount: 3_600,
    currency: "KRW",
    couponIssueId: newOperationId("coupon_issue", 17),
    expiresAt: 1_763_780_600_000,
    createdAt: 1_763_780_000_000,
  };
  const end: OperationMessage = {
    v: 1,
    kind: "order_cancel",
    id: newOperationId("order_cancel", 17),
    userId: "buyer",
    orderId: order.id,
    reason: "expired",
    createdAt: 1_763_780_600_001,
  };
  const orderWith = (changes: Record<string, unknown>) => JSON.stringify({ ...order, ...changes });
  const line = order.items[0]!;

  it("round-trip an order and an end request", () => {
    expect(decodeOperationMessage(encodeOperationMessage(order))).toEqual(order);
    expect(decodeOperationMessage(encodeOperationMessage(end))).toEqual(end);
  });

  it.each([
    ["no items", orderWith({ items: [] })],
    ["21 lines", orderWith({ items: Array.from({ length: 21 }, () => line), amount: 31_500, discount: 0 })],
    ["a quantity of 101", orderWith({ items: [{ ...line, quantity: 101 }], amount: 151_500, discount: 0 })],
    ["a malformed productId", orderWith({ items: [{ ...line, productId: "prd_nope" }] })],
    ["a unit price of 0", orderWith({ items: [{ ...line, unitPrice: 0 }], amount: 0, discount: 0 })],
    ["an amount that is not subtotal - discount", orderWith({ amount: 4_000 })],
    ["a discount above the subtotal", orderWith({ discount: 5_000, amount: -1_000 })],
    ["a payment id as coupon", orderWith({ couponIssueId: newOperationId("payment", 17) })],
    ["a missing expiresAt", orderWith({ expiresAt: undefined })],
    [
      "an end request with a payment id as orderId",
      JSON.stringify({ ...end, orderId: newOperationId("payment", 1) }),
    ],
    ["an end request with another reason", JSON.stringify({ ...end, reason: "refunded" })],
  ])("reject %s", (_, raw) => {
    expect(() => decodeOperationMessage(raw)).toThrow(MessageDecodeError);
  });

  it("name the field of the line at fault", () => {
    const items = [order.items[0], { ...line, quantity: 101 }];
    expect(() => decodeOperationMessage(orderWith({ items }))).toThrow(/bad quantity/);
    const { unitPrice: _u, ...noPrice } = line;
    expect(() => decodeOperationMessage(orderWith({ items: [noPrice] }))).toThrow(/bad unitPrice/);
    expect(() => decodeOperationMessage(orderWith({ amount: 4_000 }))).toThrow(
      /amount is not subtotal - discount/,
    );
  });

  it("decode an order as the reserving script encodes it (cjson: no coupon, a 100 % discount)", () => {
    const raw = `{"v":1,"kind":"order","id":"${order.id}","userId":"buyer","createdAt":1763780000000,"items":[{"productId":"${line.productId}","quantity":2,"unitPrice":1500}],"discount":3000,"amount":0,"currency":"KRW","expiresAt":1763780600000}`;
    expect(decodeOperationMessage(raw)).toMatchObject({ kind: "order", amount: 0, discount: 3_000 });
  });

  it("refuse a payment whose orderId is not an order id", () => {
    expect(() => decodeOperationMessage(encodedWith({ orderId: "order-9" }))).toThrow(/bad orderId/);
  });
});

describe("encodeMessageBody", () => {
  it("leaves out what the id says, and decodes back to the whole message with the id", () => {
    const body = encodeMessageBody(payment);
    expect(JSON.parse(body)).toEqual({
      userId: payment.userId,
      amount: payment.amount,
      currency: payment.currency,
      orderId: (payment as { orderId: string }).orderId,
    });
    expect(decodeOperationMessage(body, payment.id)).toEqual(payment);
  });

  it("is the same for a payment or deposit, with or without an order, as the rest of the message", () => {
    const { orderId: _orderId, ...withoutOrder } = payment as OperationMessage & { orderId?: string };
    const deposit = {
      ...withoutOrder,
      kind: "deposit",
      id: newOperationId("deposit", 17, 1_763_780_000_000),
    };
    for (const message of [payment, withoutOrder, deposit] as OperationMessage[]) {
      const { v: _v, kind: _kind, id: _id, createdAt: _createdAt, ...rest } = message;
      expect(encodeMessageBody(message)).toBe(JSON.stringify(rest));
      expect(
        Object.keys(JSON.parse(encodeMessageBody(message))).every((key) => key in MONEY_BODY_FIELDS),
      ).toBe(true);
      expect(decodeOperationMessage(encodeMessageBody(message), message.id)).toEqual(message);
    }
  });

  it("refuses a body without an id, or with an id that is no operation's", () => {
    const body = encodeMessageBody(payment);
    expect(() => decodeOperationMessage(body)).toThrow(/unknown version undefined/);
    expect(() => decodeOperationMessage(body, "pay_nope")).toThrow(/bad id or kind/);
  });

  it("still decodes a whole message (an entry written before bodies) when given its id", () => {
    expect(decodeOperationMessage(encodeOperationMessage(payment), payment.id)).toEqual(payment);
  });
});
