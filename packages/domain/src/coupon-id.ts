// Coupon ids: `cpn_` + 10 chars of creation milliseconds + 16 random chars (Crockford base32, ULID-like), so
// they sort by creation. Unlike operation ids they carry no bucket: a coupon is global, not a user's.
import { encodeBase32, randomBase32 } from "./crockford-base32.ts";

export const COUPON_ID_PATTERN = "^cpn_[0-9A-HJKMNP-TV-Z]{26}$";
const COUPON_ID_REGEX = new RegExp(COUPON_ID_PATTERN);

export function newCouponId(nowMs = Date.now()): string {
  return `cpn_${encodeBase32(nowMs, 10)}${randomBase32(16)}`;
}

export function isCouponId(id: string): boolean {
  return COUPON_ID_REGEX.test(id);
}
