// Operation ids are time-ordered and name their shard bucket, so a GET finds the owning shard without a
// scatter: `pay_` (`dep_`, `cis_`, `ord_`, `ocx_`, `rfd_`, `ppy_`) + 10 chars of milliseconds + 2 chars of bucket + 14 random chars (Crockford base32, ULID-like).
import { hash } from "node:crypto";
import {
  base32Code,
  codeArray,
  decodeBase32 as decode,
  encodeBase32 as encode,
  randomBase32,
  stringOfCodes,
} from "./crockford-base32.ts";

// An order's id is the id of the operation that placed it (`ord_`); `ocx_` is a request to end an order
// (cancel or expiry), which travels the same stream so it is ordered with the order's payment. A refund
// (`rfd_`) carries its payment's bucket, not a user's: it lands on the payment's shard and partition. A
// provider payment (`ppy_`: money the shop took at its own payment provider) carries its order's bucket.
export const OPERATION_KINDS = [
  "payment",
  "deposit",
  "coupon_issue",
  "order",
  "order_cancel",
  "refund",
  "provider_payment",
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
  provider_payment: "ppy",
};
const KIND_BY_PREFIX = new Map(
  Object.entries(PREFIX_BY_KIND).map(([kind, prefix]) => [prefix, kind as OperationKind]),
);
/** `pay_`, `dep_`, ...: what every id of the kind starts with. */
const ID_START_BY_KIND = Object.fromEntries(
  Object.entries(PREFIX_BY_KIND).map(([kind, prefix]) => [kind, `${prefix}_`]),
) as Record<OperationKind, string>;

// Fixed forever: ids carry the bucket (two base32 characters), so changing it would re-home existing data.
export const BUCKET_COUNT = 1024;
export const OPERATION_ID_PATTERN = "^(pay|dep|cis|ord|ocx|rfd|ppy)_[0-9A-HJKMNP-TV-Z]{26}$";
export const PAYMENT_ID_PATTERN = "^pay_[0-9A-HJKMNP-TV-Z]{26}$";
export const PROVIDER_PAYMENT_ID_PATTERN = "^ppy_[0-9A-HJKMNP-TV-Z]{26}$";
export const REFUND_ID_PATTERN = "^rfd_[0-9A-HJKMNP-TV-Z]{26}$";
export const ORDER_ID_PATTERN = "^ord_[0-9A-HJKMNP-TV-Z]{26}$";
export const COUPON_ISSUE_ID_PATTERN = "^cis_[0-9A-HJKMNP-TV-Z]{26}$";
const OPERATION_ID_REGEX = new RegExp(OPERATION_ID_PATTERN);

const MAX_TIME_MS = 32 ** 10 - 1;
const TAIL_LENGTH = 14;
const TAIL_REGEX = /^[0-9A-HJKMNP-TV-Z]{14}$/;
/** Each bucket's two characters, made once. */
const BUCKET_CODES: readonly string[] = Array.from({ length: BUCKET_COUNT }, (_, bucket) =>
  encode(bucket, 2),
);
/** The last time minted and its ten characters: an intake mints many ids in one millisecond (issue 30). */
const mintedTime = { ms: -1, text: "" };

/**
 * The tail of every id minted for one Idempotency-Key in one scope (a user's payments and deposits, or a payment's
 * refunds): 70 bits of SHA-256 over scope and key. Two different keys share a tail with odds of 2^-70 per pair;
 * should they, the second request is answered as a reuse of the first key (422), never applied as the first.
 */
export function idempotentTail(scope: string, idempotencyKey: string): string {
  // The intake mints a keyed id with this tail and the enqueue checks it a moment later, in the same turn:
  // the last answer is kept so the SHA-256 runs once per request (issue 30's profile: 3 % of the intake's CPU).
  if (scope === lastTail.scope && idempotencyKey === lastTail.idempotencyKey) return lastTail.tail;
  // The digest as a "binary" (latin1) string, one character per byte, not a Buffer: the same bytes, but a Buffer's
  // backing store cost six times the hash itself (1.7 against 0.26 µs per call, issue 30).
  const tail = tailOfDigest(hash("sha256", `${scope}\n${idempotencyKey}`, "binary"));
  lastTail.scope = scope;
  lastTail.idempotencyKey = idempotencyKey;
  lastTail.tail = tail;
  return tail;
}

// Nothing matches it before the first call (a scope is never undefined).
const lastTail: { scope: string | undefined; idempotencyKey: string; tail: string } = {
  scope: undefined,
  idempotencyKey: "",
  tail: "",
};

function tailOfDigest(digest: string): string {
  const codes = codeArray(TAIL_LENGTH);
  // 14 characters of 5 bits from the first 9 bytes (72 bits; the last 2 unused).
  let bits = 0;
  let value = 0;
  let made = 0;
  for (let i = 0; made < TAIL_LENGTH; i++) {
    value = (value << 8) | digest.charCodeAt(i);
    bits += 8;
    while (bits >= 5 && made < TAIL_LENGTH) {
      bits -= 5;
      codes[made++] = base32Code(value >> bits);
    }
    value &= (1 << bits) - 1;
  }
  return stringOfCodes(codes);
}

/** What names an operation's status in Redis when its kind keeps one by tail: bucket and tail, 16 characters. */
export const operationTailOf = (operationId: string): string => operationId.slice(14);

/**
 * `tail`: the id's last 14 characters, random unless given. A request with an Idempotency-Key gets a tail its
 * retries compute again (idempotentTail), so the key its status lives under (queue-keys.ts) is found by a retry
 * without a second key pointing to it.
 */
export function newOperationId(
  kind: OperationKind,
  bucket: number,
  nowMs = Date.now(),
  tail: string = randomBase32(TAIL_LENGTH),
): string {
  // Out-of-range values would wrap silently into another bucket (another shard) or garble the id.
  if (!Number.isInteger(bucket) || bucket < 0 || bucket >= BUCKET_COUNT) {
    throw new RangeError(`bucket ${bucket} is outside 0..${BUCKET_COUNT - 1}`);
  }
  if (!Number.isInteger(nowMs) || nowMs < 0 || nowMs > MAX_TIME_MS) {
    throw new RangeError(`time ${nowMs} cannot be encoded in an operation id`);
  }
  if (!TAIL_REGEX.test(tail)) throw new RangeError(`tail ${tail} is not ${TAIL_LENGTH} base32 characters`);
  if (nowMs !== mintedTime.ms) {
    mintedTime.ms = nowMs;
    mintedTime.text = encode(nowMs, 10);
  }
  return ID_START_BY_KIND[kind] + mintedTime.text + BUCKET_CODES[bucket] + tail;
}

/**
 * The two characters of an id that carry its bucket (characters 15-16, after the prefix and the time), so a store
 * can select a bucket's rows by their ids without decoding them (`substr(id, 15, 2)`).
 */
export const bucketCodeOf = (bucket: number): string => {
  if (!Number.isInteger(bucket) || bucket < 0 || bucket >= BUCKET_COUNT) {
    throw new RangeError(`bucket ${bucket} is outside 0..${BUCKET_COUNT - 1}`);
  }
  return BUCKET_CODES[bucket]!;
};

/**
 * The bucket of an id this process minted (newOperationId checked its parts): read from its two characters,
 * where parseOperationId checks the whole id first. An id from outside is parsed, never read with this.
 */
export const bucketOfMintedId = (operationId: string): number => decode(operationId.slice(14, 16));

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
