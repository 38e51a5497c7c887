import { luaScript } from "../lua-script.ts";
import type { CouponReservation } from "./reserve-coupon.ts";

/**
 * release-coupon-3.lua: gives back the unit a reservation held when its issue was not recorded. true released,
 * false nothing listed (released before, or the issue was confirmed).
 */
export const releaseCoupon = luaScript({
  file: "release-coupon-3.lua",
  keys: ({ coupon }: CouponReservation) => [coupon.stateKey, coupon.holdersKey, coupon.reservationsKey],
  args: (input: CouponReservation) => [input.issueId, input.userId],
  decode: (released: number): boolean => released === 1,
});
