// The one message shape that travels intake -> stream -> worker. Intake encodes it, workers decode it; a
// message that does not decode is poison (it will never succeed) and ends in the dead-letter stream.
import { isCouponId } from "./coupon-id.ts";
import { type MoneyOperationKind, ORDER_ID_PATTERN, parseOperationId } from "./operation-id.ts";
import {
  MAX_LINE_QUANTITY,
  MAX_ORDER_LINES,
  ORDER_END_REASONS,
  type OrderEndReason,
  type OrderLine,
} from "./order-definition.ts";
import { isProductId } from "./product-id.ts";
import { MAX_AMOUNT } from "./schemas/operation-schemas.ts";

export const MESSAGE_VERSION = 1;

interface MessageBase {
  v: typeof MESSAGE_VERSION;
  id: string;
  userId: string;
  /** Acceptance time at intake, epoch ms. */
  createdAt: number;
}

/** A payment or a deposit: moves `amount` through the user's wallet. */
export interface MoneyOperationMessage extends MessageBase {
  kind: MoneyOperationKind;
  amount: number;
  currency: string;
  orderId?: string;
}

/** One first-come-first-served coupon, already reserved for the user in Redis; the worker records it. */
export interface CouponIssueMessage extends MessageBase {
  kind: "coupon_issue";
  couponId: string;
}

/**
 * An order whose lines Redis already reserved; `amount` = subtotal - discount, computed by the reserving
 * script from the prices it read (so the worker and the client agree on what the payment must be).
 */
export interface OrderMessage extends MessageBase {
  kind: "order";
  items: OrderLine[];
  discount: number;
  amount: number;
  currency: string;
  couponIssueId?: string;
  /** Epoch ms after which an unpaid order expires. */
  expiresAt: number;
}

/** Ends an order that is still awaiting payment: stock and coupon go back. */
export interface OrderCancelMessage extends MessageBase {
  kind: "order_cancel";
  orderId: string;
  reason: OrderEndReason;
}

export type OperationMessage = MoneyOperationMessage | CouponIssueMessage | OrderMessage | OrderCancelMessage;

export function encodeOperationMessage(message: OperationMessage): string {
  return JSON.stringify(message);
}

export class MessageDecodeError extends Error {
  constructor(reason: string) {
    super(`undecodable operation message: ${reason}`);
    this.name = "MessageDecodeError";
  }
}

const isPositiveInt = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value > 0;

export function decodeOperationMessage(raw: string): OperationMessage {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new MessageDecodeError("not JSON");
  }
  if (typeof value !== "object" || value === null) throw new MessageDecodeError("not an object");
  if (value.v !== MESSAGE_VERSION) throw new MessageDecodeError(`unknown version ${String(value.v)}`);
  const parsed = typeof value.id === "string" ? parseOperationId(value.id) : null;
  if (parsed === null || parsed.kind !== value.kind) throw new MessageDecodeError("bad id or kind");
  if (typeof value.userId !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(value.userId)) {
    throw new MessageDecodeError("bad userId");
  }
  if (!isPositiveInt(value.createdAt)) throw new MessageDecodeError("bad createdAt");
  if (parsed.kind === "coupon_issue") {
    if (typeof value.couponId !== "string" || !isCouponId(value.couponId)) {
      throw new MessageDecodeError("bad couponId");
    }
    if (value.amount !== undefined || value.currency !== undefined) {
      throw new MessageDecodeError("a coupon issue carries no amount or currency");
    }
    return value as unknown as CouponIssueMessage;
  }
  if (parsed.kind === "order") return checkOrder(value);
  if (parsed.kind === "order_cancel") {
    if (typeof value.orderId !== "string" || !ORDER_ID_REGEX.test(value.orderId)) {
      throw new MessageDecodeError("bad orderId");
    }
    if (!ORDER_END_REASONS.includes(value.reason as OrderEndReason))
      throw new MessageDecodeError("bad reason");
    return value as unknown as OrderCancelMessage;
  }
  // The same bounds as the HTTP edge: a message is the request it carries, whoever wrote it to the stream.
  if (!isPositiveInt(value.amount) || value.amount > MAX_AMOUNT) throw new MessageDecodeError("bad amount");
  if (typeof value.currency !== "string" || !/^[A-Z]{3}$/.test(value.currency)) {
    throw new MessageDecodeError("bad currency");
  }
  if (
    value.orderId !== undefined &&
    (typeof value.orderId !== "string" || !ORDER_ID_REGEX.test(value.orderId))
  )
    throw new MessageDecodeError("bad orderId");
  return value as unknown as MoneyOperationMessage;
}

const ORDER_ID_REGEX = new RegExp(ORDER_ID_PATTERN);
const isNonNegativeInt = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0;

function checkOrder(value: Record<string, unknown>): OrderMessage {
  const items = value.items;
  if (!Array.isArray(items) || items.length < 1 || items.length > MAX_ORDER_LINES) {
    throw new MessageDecodeError("bad items");
  }
  let subtotal = 0;
  for (const line of items as Record<string, unknown>[]) {
    if (typeof line?.productId !== "string" || !isProductId(line.productId)) {
      throw new MessageDecodeError("bad productId");
    }
    if (!isPositiveInt(line.quantity) || line.quantity > MAX_LINE_QUANTITY) {
      throw new MessageDecodeError("bad quantity");
    }
    if (!isPositiveInt(line.unitPrice) || line.unitPrice > MAX_AMOUNT)
      throw new MessageDecodeError("bad unitPrice");
    subtotal += line.quantity * line.unitPrice;
  }
  if (!isNonNegativeInt(value.discount) || value.discount > subtotal)
    throw new MessageDecodeError("bad discount");
  if (value.amount !== subtotal - value.discount || value.amount > MAX_AMOUNT) {
    throw new MessageDecodeError("amount is not subtotal - discount");
  }
  if (typeof value.currency !== "string" || !/^[A-Z]{3}$/.test(value.currency)) {
    throw new MessageDecodeError("bad currency");
  }
  if (value.couponIssueId !== undefined) {
    const coupon = typeof value.couponIssueId === "string" ? parseOperationId(value.couponIssueId) : null;
    if (coupon?.kind !== "coupon_issue") throw new MessageDecodeError("bad couponIssueId");
  }
  if (!isPositiveInt(value.expiresAt)) throw new MessageDecodeError("bad expiresAt");
  return value as unknown as OrderMessage;
}
