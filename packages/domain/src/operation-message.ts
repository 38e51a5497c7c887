// The one message shape that travels intake -> stream -> worker. Intake encodes it, workers decode it; a
// message that does not decode is poison (it will never succeed) and ends in the dead-letter stream.
import { isCouponId } from "./coupon-id.ts";
import { type MoneyOperationKind, parseOperationId } from "./operation-id.ts";
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

export type OperationMessage = MoneyOperationMessage | CouponIssueMessage;

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
  // The same bounds as the HTTP edge: a message is the request it carries, whoever wrote it to the stream.
  if (!isPositiveInt(value.amount) || value.amount > MAX_AMOUNT) throw new MessageDecodeError("bad amount");
  if (typeof value.currency !== "string" || !/^[A-Z]{3}$/.test(value.currency)) {
    throw new MessageDecodeError("bad currency");
  }
  if (value.orderId !== undefined && typeof value.orderId !== "string")
    throw new MessageDecodeError("bad orderId");
  return value as unknown as MoneyOperationMessage;
}
