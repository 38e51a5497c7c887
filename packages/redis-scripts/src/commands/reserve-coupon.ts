import { luaScript } from "../lua-script.ts";

/** A coupon's keys in its own slot, as the reservation scripts take them. */
export interface CouponReservationKeys {
  /** {cpn_...}:coupon: quantity, startsAt, endsAt, issued. */
  stateKey: string;
  /** {cpn_...}:holders: userId -> issue id. */
  holdersKey: string;
  /** {cpn_...}:reservations: "<issue id> <user id>" -> reserved at (epoch ms). */
  reservationsKey: string;
}

export interface CouponReservation {
  coupon: CouponReservationKeys;
  issueId: string;
  userId: string;
}

export interface ReserveCouponResult {
  /** 1 held; else the refusal's code as issue-coupon-n.lua numbers it (-1 unknown .. -5 sold out). */
  code: number;
  /** The refusal's detail (startsAt, endsAt, the existing issue id), "" when it has none. */
  value: string;
  /** When held: the coupon master's TIME at the reservation, which the commit must follow within its window. */
  reservedAtMs: number | null;
}

/** reserve-coupon-3.lua: the coupon's half of a two-step issue (window, one per user, count; holds a unit). */
export const reserveCoupon = luaScript({
  file: "reserve-coupon-3.lua",
  keys: ({ coupon }: CouponReservation) => [coupon.stateKey, coupon.holdersKey, coupon.reservationsKey],
  args: (input: CouponReservation) => [input.issueId, input.userId],
  decode: ([code, value]: [number, number | string]): ReserveCouponResult =>
    code === 1
      ? { code, value: "", reservedAtMs: Number(value) }
      : { code, value: String(value), reservedAtMs: null },
});
