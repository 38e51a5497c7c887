// What an order script answers (reserve-order-n.lua's codes; the two-step scripts share them), as the route's
// outcome.

import { type AdmissionInfo, type AdmissionRefusal, admissionInfo, admissionRefusal } from "@floodgate/queue";
import type { ScriptAnswer } from "@floodgate/redis-scripts";
import type { ReserveOrderRequest } from "./reserve-order-request.ts";

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
