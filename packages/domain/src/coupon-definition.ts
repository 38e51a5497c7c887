// A first-come-first-served coupon: `quantity` of them, each user at most one, issued only inside the
// window. Definitions never change after creation, which is what lets every intake cache them forever.
import type { Static } from "typebox";
import type { couponIssueResponseSchema } from "./schemas/coupon-schemas.ts";

export const DISCOUNT_TYPES = ["fixed", "percent"] as const;
export type DiscountType = (typeof DISCOUNT_TYPES)[number];

export const MAX_COUPON_QUANTITY = 10_000_000;

export interface CouponDefinition {
  id: string;
  name: string;
  quantity: number;
  /** Epoch ms; null: open from creation. */
  startsAt: number | null;
  /** Epoch ms, exclusive; null: open until sold out. */
  endsAt: number | null;
  /** `fixed`: minor units of the deployment's currency off; `percent`: 1-100 % off. */
  discount: { type: DiscountType; value: number };
  createdAt: number;
}

/** What GET /v1/coupon-issues/:id answers, whether read from Redis or from the user's shard. */
export type CouponIssueView = Static<typeof couponIssueResponseSchema>;
