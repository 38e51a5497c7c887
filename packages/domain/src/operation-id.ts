// Operation ids are time-ordered and name their shard bucket, so a GET finds the owning shard without a
// scatter: `pay_` (`dep_`, `cis_`, `ord_`, `ocx_`, `rfd_`) + 10 chars of milliseconds + 2 chars of bucket + 14 random chars (Crockford base32, ULID-like).
import { decodeBase32 as decode, encodeBase32 as encode, randomBase32 } from "./crockford-base32.ts";

// An order's id is the id of the operation that placed it (`ord_`); `ocx_` is a request to end an order
// (cancel or expiry), which travels the same stream so it is ordered with the order's payment. A refund
// (`rfd_`) carries its payment's bucket, not a user's: it lands on the payment's shard and partition.
export const OPERATION_KINDS = [
  "payment",
  "deposit",
  "coupon_issue",
  "order",
  "order_cancel",
  "refund",
] as const;
export type OperationKind = (typeof OPERATION_KINDS)[number];
/** The kinds that move money through a wallet. */
export type MoneyOperationKind = "payment" | "deposit";

const PREFIX_BY_KIND: Record<OperationKind, string> = {
  payment: "pay",
  deposit: "dep",
  coupon_issue: "cis",
  order: "ord",
  order_cancel: "ocx",
  refund: "rfd",
};
const KIND_BY_PREFIX = new Map(
  Object.entries(PREFIX_BY_KIND).map(([kind, prefix]) => [prefix, kind as OperationKind]),
);

// Fixed forever: ids carry the bucket (two base32 characters), so changing it would re-home existing data.
export const BUCKET_COUNT = 1024;
export const OPERATION_ID_PATTERN = "^(pay|dep|cis|ord|ocx|rfd)_[0-9A-HJKMNP-TV-Z]{26}$";
export const PAYMENT_ID_PATTERN = "^pay_[0-9A-HJKMNP-TV-Z]{26}$";
export const REFUND_ID_PATTERN = "^rfd_[0-9A-HJKMNP-TV-Z]{26}$";
export const ORDER_ID_PATTERN = "^ord_[0-9A-HJKMNP-TV-Z]{26}$";
export const COUPON_ISSUE_ID_PATTERN = "^cis_[0-9A-HJKMNP-TV-Z]{26}$";
const OPERATION_ID_REGEX = new RegExp(OPERATION_ID_PATTERN);

const MAX_TIME_MS = 32 ** 10 - 1;

export function newOperationId(kind: OperationKind, bucket: number, nowMs = Date.now()): string {
  // Out-of-range values would wrap silently into another bucket (another shard) or garble the id.
  if (!Number.isInteger(bucket) || bucket < 0 || bucket >= BUCKET_COUNT) {
    throw new RangeError(`bucket ${bucket} is outside 0..${BUCKET_COUNT - 1}`);
  }
  if (!Number.isInteger(nowMs) || nowMs < 0 || nowMs > MAX_TIME_MS) {
    throw new RangeError(`time ${nowMs} cannot be encoded in an operation id`);
  }
  return `${PREFIX_BY_KIND[kind]}_${encode(nowMs, 10)}${encode(bucket, 2)}${randomBase32(14)}`;
}

export interface ParsedOperationId {
  kind: OperationKind;
  bucket: number;
  createdAtMs: number;
}

/** Null for anything that is not a well-formed id (the caller answers 400). */
export function parseOperationId(id: string): ParsedOperationId | null {
  if (!OPERATION_ID_REGEX.test(id)) return null;
  const kind = KIND_BY_PREFIX.get(id.slice(0, 3));
  const bucket = decode(id.slice(14, 16));
  if (kind === undefined || bucket >= BUCKET_COUNT) return null;
  return { kind, bucket, createdAtMs: decode(id.slice(4, 14)) };
}
