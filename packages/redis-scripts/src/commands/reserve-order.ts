import { luaScript, type ScriptArgument } from "../lua-script.ts";
import { scriptAnswers } from "../script-answer.ts";
import { type AdmissionGate, gateArgs, gateKeys, sessionArgs } from "./includes/admission-gate.ts";

/** The user's slot's keys of an order (reserve-order-n.lua's and commit-order-5.lua's first five). */
export interface OrderKeys {
  /** {p}:idem:<userId>:<Idempotency-Key>; ignored when idempotencyTtlSeconds is 0. */
  idempotencyKey: string;
  /** {p}:op:<orderId>. */
  statusKey: string;
  /** {p}:ops. */
  streamKey: string;
  /** {p}:order:<orderId>. */
  orderStateKey: string;
  /** {p'}:cis:<couponIssueId> in its holder's partition; a key that never exists when the order has none. */
  couponRedemptionKey: string;
}

/** What both order scripts take first (ARGV 1..12, after the admission block for reserve-order-n.lua). */
export interface OrderFields {
  orderId: string;
  userId: string;
  fingerprint: string;
  /** 0 without an Idempotency-Key. */
  idempotencyTtlSeconds: number;
  /** Longer than any order can stay unpaid. */
  orderStateTtlSeconds: number;
  createdAt: number;
  expiresAt: number;
  currency: string;
  /** "" for none. */
  couponIssueId: string;
  /** The largest amount an order may have. */
  maxAmount: number;
  /** Units of a product one user may hold unpaid when the product has no cap of its own. */
  defaultMaxUnitsPerUser: number;
  /** TTL of an unpaid-units counter, renewed by each order that raises it. */
  unpaidUnitsTtlSeconds: number;
}

export const orderKeyList = (keys: OrderKeys): string[] => [
  keys.idempotencyKey,
  keys.statusKey,
  keys.streamKey,
  keys.orderStateKey,
  keys.couponRedemptionKey,
];

export const orderFieldArgs = (fields: OrderFields): ScriptArgument[] => [
  fields.orderId,
  fields.userId,
  fields.fingerprint,
  fields.idempotencyTtlSeconds,
  fields.orderStateTtlSeconds,
  fields.createdAt,
  fields.expiresAt,
  fields.currency,
  fields.couponIssueId,
  fields.maxAmount,
  fields.defaultMaxUnitsPerUser,
  fields.unpaidUnitsTtlSeconds,
];

export interface ReserveOrderInput {
  admission: AdmissionGate;
  keys: OrderKeys;
  fields: OrderFields;
  lines: {
    /** {prd_...}:product. */
    productStateKey: string;
    /** {p}:unpaid:<productId>:<userId>. */
    unpaidUnitsKey: string;
    quantity: number;
  }[];
}

// One order's block: its line count, then admission's part, then its own (reserve-order-n.lua's header).
const blockKeys = (input: ReserveOrderInput): string[] =>
  gateKeys(
    input.admission,
    ...orderKeyList(input.keys),
    ...input.lines.map((line) => line.productStateKey),
    ...input.lines.map((line) => line.unpaidUnitsKey),
  );

const blockArgs = (input: ReserveOrderInput): ScriptArgument[] => [
  input.lines.length,
  ...gateArgs(
    input.admission,
    ...orderFieldArgs(input.fields),
    ...input.lines.map((line) => line.quantity),
    ...sessionArgs(input.admission),
  ),
];

/**
 * reserve-order-n.lua: whole orders on one Redis, as many as one turn of the intake gathered (their keys span the
 * products' and the user's slots; a cluster takes reserve-stock + commit-order instead). One answer per order, in
 * order; codes in ReserveOrderCode (packages/reservations).
 */
export const reserveOrders = luaScript({
  file: "reserve-order-n.lua",
  keys: (orders: readonly ReserveOrderInput[]) => orders.flatMap(blockKeys),
  args: (orders: readonly ReserveOrderInput[]) => orders.flatMap(blockArgs),
  decode: scriptAnswers,
});
