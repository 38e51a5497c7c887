import { MAX_AMOUNT, type OrderLine } from "@floodgate/domain";
import type { ScriptedRedis } from "@floodgate/redis-scripts";
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
  const productKeys = request.items.map((item) => keys.productState(item.productId));
  const orderKeys = [
    ...request.admission.keys,
    keys.idempotency(partition, request.userId, request.idempotencyKey ?? ""),
    keys.status(partition, request.orderId),
    keys.stream(partition),
    keys.orderState(partition, request.orderId),
    couponIssueKey(keys, partition, request.couponIssueId),
    ...productKeys,
    ...request.items.map((item) => keys.unpaidUnits(item.productId, request.userId)),
  ];
  const reserve = acceptingScript(
    redis,
    request.replicaWait ?? NO_REPLICA_WAIT,
    "reserveOrder",
    keys.stream(partition),
  );
  const [code, value, info, replayedFlag] = await reserve(
    orderKeys.length,
    ...orderKeys,
    ...request.admission.args,
    request.orderId,
    request.userId,
    request.fingerprint,
    request.idempotencyKey === undefined ? 0 : request.idempotencyTtlSeconds,
    request.orderStateTtlSeconds,
    request.createdAt,
    request.expiresAt,
    request.currency,
    request.couponIssueId ?? "",
    MAX_AMOUNT,
    request.defaultMaxUnitsPerUser,
    request.unpaidUnitsTtlSeconds,
    ...request.items.map((item) => item.quantity),
  );
  return orderOutcome(request, code, value, info, replayedFlag);
}

/** An order script's reply as the route's outcome (reserve-order-n.lua's codes; the two-step scripts share them). */
export function orderOutcome(
  request: Pick<ReserveOrderRequest, "orderId" | "items">,
  code: number,
  value: string,
  info: string | undefined,
  replayedFlag: number | undefined,
): ReserveOrderOutcome {
  const replayed = replayedFlag === 1;
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
