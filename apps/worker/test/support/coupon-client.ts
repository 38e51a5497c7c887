// Coupons through the real intake (buildApp + inject), and coupon issue messages for applying directly.
import { type CouponIssueMessage, newCouponId, newOperationId } from "@floodgate/domain";
import { bucketForUser } from "@floodgate/shard-router";
import { asShop, documentedInject, type IntakeApp } from "./intake-client.ts";

export const ADMIN_KEY = "worker-test-admin-key-0123456789";

export async function createCoupon(app: IntakeApp, quantity: number): Promise<string> {
  const response = await documentedInject(app, {
    method: "POST",
    url: "/v1/coupons",
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
    payload: { name: `drop of ${quantity}`, quantity, discount: { type: "percent", value: 20 } },
  });
  if (response.statusCode !== 201) throw new Error(`coupon refused: ${response.statusCode} ${response.body}`);
  return response.json().id;
}

export const requestIssue = (app: IntakeApp, couponId: string, userId: string) =>
  documentedInject(app, {
    method: "POST",
    url: `/v1/coupons/${couponId}/issues`,
    headers: asShop(app),
    payload: { userId },
  });

export function couponIssueMessage(userId: string, couponId = newCouponId()): CouponIssueMessage {
  return {
    v: 1,
    kind: "coupon_issue",
    id: newOperationId("coupon_issue", bucketForUser(userId)),
    userId,
    couponId,
    createdAt: Date.now(),
  };
}
