// Intake encodes operation messages, workers decode them with the compiled schemas of
// schemas/operation-message-schemas.ts; a message that does not decode is poison (it will never succeed) and
// ends in the dead-letter stream.
import { Compile, type Validator } from "typebox/compile";
import type { TLocalizedValidationError } from "typebox/error";
import { type OperationKind, parseOperationId } from "./operation-id.ts";
import {
  couponIssueMessageSchema,
  MESSAGE_VERSION,
  moneyOperationMessageSchema,
  type OperationMessage,
  type OrderMessage,
  orderCancelMessageSchema,
  orderMessageSchema,
  refundMessageSchema,
} from "./schemas/operation-message-schemas.ts";

export function encodeOperationMessage(message: OperationMessage): string {
  return JSON.stringify(message);
}

export class MessageDecodeError extends Error {
  constructor(reason: string) {
    super(`undecodable operation message: ${reason}`);
    this.name = "MessageDecodeError";
  }
}

// Compiled once, at import: each check is then a generated function, not a walk over the schema.
const money = Compile(moneyOperationMessageSchema);
const VALIDATORS: Record<OperationKind, Validator> = {
  payment: money,
  deposit: money,
  coupon_issue: Compile(couponIssueMessageSchema),
  order: Compile(orderMessageSchema),
  order_cancel: Compile(orderCancelMessageSchema),
  refund: Compile(refundMessageSchema),
};

export function decodeOperationMessage(raw: string): OperationMessage {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new MessageDecodeError("not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new MessageDecodeError("not an object");
  }
  const envelope = value as Record<string, unknown>;
  if (envelope.v !== MESSAGE_VERSION) throw new MessageDecodeError(`unknown version ${String(envelope.v)}`);
  // The id's prefix names the kind, and the kind picks the schema.
  const parsed = typeof envelope.id === "string" ? parseOperationId(envelope.id) : null;
  if (parsed === null || parsed.kind !== envelope.kind) throw new MessageDecodeError("bad id or kind");
  const check = VALIDATORS[parsed.kind];
  if (!check.Check(value)) throw new MessageDecodeError(firstProblem(check.Errors(value)));
  const message = value as OperationMessage;
  if (message.kind === "order") checkOrderAmounts(message);
  return message;
}

/** "bad <field>", naming the innermost field (a line's `quantity`, not `items/0/quantity`). */
function firstProblem(errors: readonly TLocalizedValidationError[]): string {
  const error = errors[0];
  if (error === undefined) return "does not match its schema";
  const missing = error.keyword === "required" ? error.params.requiredProperties[0] : undefined;
  const field =
    missing ?? error.instancePath.split("/").findLast((part) => part !== "" && !/^\d+$/.test(part));
  return field === undefined ? "does not match its schema" : `bad ${field}`;
}

/** What no schema can say: the amount is what the lines cost less the discount. */
function checkOrderAmounts(order: OrderMessage): void {
  const subtotal = order.items.reduce((sum, line) => sum + line.quantity * line.unitPrice, 0);
  if (order.discount > subtotal) throw new MessageDecodeError("bad discount");
  if (order.amount !== subtotal - order.discount) {
    throw new MessageDecodeError("amount is not subtotal - discount");
  }
}
