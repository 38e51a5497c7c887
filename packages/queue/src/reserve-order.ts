import { MAX_AMOUNT, type OrderLine } from "@floodgate/domain";
import {
  type OrderFields,
  type OrderKeys,
  reserveOrder as reserveOrderScript,
  type ScriptAnswer,
  type ScriptedRedis,
} from "@floodgate/redis-scripts";
import {
  type AdmissionCheck,
  type AdmissionInfo,
  type AdmissionRefusal,
  admissionInfo,
  admissionRefusal,
} from "./admission-check.ts";
import type { QueueKeys } from "./queue-keys.ts";
import { acceptingScript, NO_REPLICA_WAIT, type ReplicaWait } from "./replica-wait.ts";
import { reserveOrderInTwoSteps } from "./reserve-order-in-two-steps.ts";

/** The return codes of reserve-order-n.lua, the one place they are named (admission codes aside). */
export const ReserveOrderCode = {
  accepted: 1,
  replayed: 0,
  conflict: -1,
  unknownProduct: -2,
  outOfStock: -3,
  unknownCoupon: -4,
  couponNotYours: -5,
  couponUsed: -6,
  amountTooLarge: -7,
  unitLimitExceeded: -8,
} as const;

export interface ShortLine {
  /** 1-based, as the client numbers its lines. */
  line: number;
  productId: string;
  requested: number;
  available: number;
}

/** A product whose per-user cap this order would pass: its first line. */
export interface OverLimitLine {
  /** 1-based, as the client numbers its lines. */
  line: number;
  productId: string;
  /** Units of the product this order asks for (all its lines). */
  requested: number;
  /** Units of the product the user holds in orders awaiting payment. */
  held: number;
  limit: number;
}

/** A refusal the script decided; `replayed` when it is an Idempotency-Key's recorded first answer. */
export type OrderRefusal = (
  | { result: "unknown_product"; line: number; productId: string }
  | { result: "out_of_stock"; lines: ShortLine[] }
  | { result: "unknown_coupon" }
  | { result: "coupon_not_yours" }
  | { result: "coupon_used"; orderId: string }
  | { result: "amount_too_large"; amount: number }
  | { result: "unit_limit_exceeded"; lines: OverLimitLine[] }
) & { replayed: boolean };

export type ReserveOrderOutcome =
  | { result: "accepted"; id: string; amount: number; admission: AdmissionInfo | null }
  | { result: "replayed"; id: string; amount: number; admission: AdmissionInfo | null }
  | { result: "conflict"; existingId: string }
  | OrderRefusal
  | AdmissionRefusal;

export interface ReserveOrderRequest {
  orderId: string;
  userId: string;
  items: Pick<OrderLine, "productId" | "quantity">[];
  couponIssueId?: string;
  currency: string;
  createdAt: number;
  expiresAt: number;
  fingerprint: string;
  idempotencyKey?: string;
  idempotencyTtlSeconds: number;
  orderStateTtlSeconds: number;
  /** The per-user cap on unpaid units of a product that has none of its own (MAX_UNITS_PER_USER). */
  defaultMaxUnitsPerUser: number;
  /** TTL of a user's unpaid-units counter: a safety net; paying or ending an order lowers it. */
  unpaidUnitsTtlSeconds: number;
  /** Rate limits and the waiting room, checked in the same call. */
  admission: AdmissionCheck;
  /** REDIS_WAIT_REPLICAS: replicas that must confirm an accepted order before it counts as accepted. */
  replicaWait?: ReplicaWait;
}

/** Stands in for "no coupon": a key in the user's slot that nothing ever writes. */
export const NO_COUPON = "-";

/**
 * A coupon issue's record lives in its holder's partition (the id names the holder's bucket), which is the
 * orderer's unless someone presents another user's coupon: then the script finds it and says whose it is.
 */
export function couponIssueKey(
  keys: QueueKeys,
  userPartition: number,
  couponIssueId: string | undefined,
): string {
  if (couponIssueId === undefined) return keys.couponIssue(userPartition, NO_COUPON);
  return keys.couponIssue(keys.partitionForOperation(couponIssueId) ?? userPartition, couponIssueId);
}

/**
 * The intake's whole Redis budget for an order on one Redis: ONE script call (admission, idempotency, per-user cap and stock
 * of every line, coupon, amount, reservation, unpaid units, status and XADD). Do not add calls here; put new checks inside the Lua script.
 * With REDIS_WAIT_REPLICAS the script's WAIT goes in the same write (replica-wait.ts).
 */
export async function reserveOrder(
  redis: ScriptedRedis,
  keys: QueueKeys,
  request: ReserveOrderRequest,
): Promise<ReserveOrderOutcome> {
  // A cluster keeps each product and the user in their own slots: reservations and a commit instead.
  if (redis.isCluster) return reserveOrderInTwoSteps(redis, keys, request);
  const partition = keys.partitionForUser(request.userId);
  const reserve = acceptingScript(
    redis,
    request.replicaWait ?? NO_REPLICA_WAIT,
    reserveOrderScript,
    keys.stream(partition),
  );
  const answer = await reserve({
    admission: request.admission,
    keys: orderKeysOf(keys, partition, request),
    fields: orderFieldsOf(request),
    lines: request.items.map((item) => ({
      productStateKey: keys.productState(item.productId),
      unpaidUnitsKey: keys.unpaidUnits(item.productId, request.userId),
      quantity: item.quantity,
    })),
  });
  return orderOutcome(request, answer);
}

/** The order's keys in the user's slot, as both order scripts take them. */
export function orderKeysOf(keys: QueueKeys, partition: number, request: ReserveOrderRequest): OrderKeys {
  return {
    idempotencyKey: keys.idempotency(partition, request.userId, request.idempotencyKey ?? ""),
    statusKey: keys.status(partition, request.orderId),
    streamKey: keys.stream(partition),
    orderStateKey: keys.orderState(partition, request.orderId),
    couponRedemptionKey: couponIssueKey(keys, partition, request.couponIssueId),
  };
}

/** The order's fields, as both order scripts take them. */
export function orderFieldsOf(request: ReserveOrderRequest): OrderFields {
  return {
    orderId: request.orderId,
    userId: request.userId,
    fingerprint: request.fingerprint,
    idempotencyTtlSeconds: request.idempotencyKey === undefined ? 0 : request.idempotencyTtlSeconds,
    orderStateTtlSeconds: request.orderStateTtlSeconds,
    createdAt: request.createdAt,
    expiresAt: request.expiresAt,
    currency: request.currency,
    couponIssueId: request.couponIssueId ?? "",
    maxAmount: MAX_AMOUNT,
    defaultMaxUnitsPerUser: request.defaultMaxUnitsPerUser,
    unpaidUnitsTtlSeconds: request.unpaidUnitsTtlSeconds,
  };
}

/** An order script's reply as the route's outcome (reserve-order-n.lua's codes; the two-step scripts share them). */
export function orderOutcome(
  request: Pick<ReserveOrderRequest, "orderId" | "items">,
  { code, value, admission: info, replayed }: ScriptAnswer,
): ReserveOrderOutcome {
  switch (code) {
    case ReserveOrderCode.accepted:
      return {
        result: "accepted",
        id: request.orderId,
        amount: Number(value),
        admission: admissionInfo(info),
      };
    case ReserveOrderCode.replayed: {
      const [id, amount] = value.split(" ");
      return { result: "replayed", id: id!, amount: Number(amount), admission: admissionInfo(info) };
    }
    case ReserveOrderCode.conflict:
      return { result: "conflict", existingId: value };
    case ReserveOrderCode.unknownProduct: {
      const line = Number(value);
      return { result: "unknown_product", line, productId: request.items[line - 1]!.productId, replayed };
    }
    case ReserveOrderCode.outOfStock:
      return {
        result: "out_of_stock",
        lines: value.split(",").map((pair) => {
          const [line, available] = pair.split(":").map(Number) as [number, number];
          const item = request.items[line - 1]!;
          return { line, productId: item.productId, requested: item.quantity, available };
        }),
        replayed,
      };
    case ReserveOrderCode.unknownCoupon:
      return { result: "unknown_coupon", replayed };
    case ReserveOrderCode.couponNotYours:
      return { result: "coupon_not_yours", replayed };
    case ReserveOrderCode.couponUsed:
      return { result: "coupon_used", orderId: value, replayed };
    case ReserveOrderCode.amountTooLarge:
      return { result: "amount_too_large", amount: Number(value), replayed };
    case ReserveOrderCode.unitLimitExceeded:
      return { result: "unit_limit_exceeded", lines: overLimitLines(request.items, value), replayed };
    default: {
      const refusal = admissionRefusal(code, value);
      if (refusal) return refusal;
      throw new Error(`an order script returned an unknown code ${code}`);
    }
  }
}

/** reserve-order-n.lua's "line:held:limit,..." as lines, with what the order asks of each product. */
function overLimitLines(items: ReserveOrderRequest["items"], value: string): OverLimitLine[] {
  return value.split(",").map((triple) => {
    const [line, held, limit] = triple.split(":").map(Number) as [number, number, number];
    const productId = items[line - 1]!.productId;
    const requested = items
      .filter((item) => item.productId === productId)
      .reduce((sum, item) => sum + item.quantity, 0);
    return { line, productId, requested, held, limit };
  });
}
