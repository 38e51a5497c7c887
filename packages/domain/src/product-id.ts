// Product ids: `prd_` + 10 chars of creation milliseconds + 16 random chars (Crockford base32, ULID-like).
// Like coupons, products are global: the id names no bucket.
import { encodeBase32, randomBase32 } from "./crockford-base32.ts";

export const PRODUCT_ID_PATTERN = "^prd_[0-9A-HJKMNP-TV-Z]{26}$";
const PRODUCT_ID_REGEX = new RegExp(PRODUCT_ID_PATTERN);

export function newProductId(nowMs = Date.now()): string {
  return `prd_${encodeBase32(nowMs, 10)}${randomBase32(16)}`;
}

export function isProductId(id: string): boolean {
  return PRODUCT_ID_REGEX.test(id);
}
