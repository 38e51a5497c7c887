import type { Static } from "typebox";
import type { MoneyOperationKind } from "./operation-id.ts";
import type { operationResponseSchema } from "./schemas/operation-schemas.ts";

export const OPERATION_STATUSES = ["pending", "succeeded", "failed"] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];

// already_issued: a coupon issue that found the user already holding this coupon on the shard (only possible
// when Redis lost its reservation record, e.g. a restart without AOF, and the user asked again).
// order_not_found / order_not_payable / amount_mismatch: a payment for an order that is not the user's
// (or does not exist), that is no longer awaiting payment (paid, cancelled, expired), or of another amount.
// coupon_unavailable: an order whose coupon the shard could not redeem (its issue failed or it was used).
// payment_not_found / payment_not_succeeded / refund_exceeds_payment / restock_not_possible: a refund whose
// payment is not on the shard, did not succeed, has less left to refund than asked, or asked for its order's
// units back without refunding the order in full (refunds-route.ts).
// order_already_paid / reference_used: a provider payment for an order another reference paid first, or whose
// (provider, reference) already paid another order (provider-payments-route.ts). A provider payment that
// failed order_not_payable, amount_mismatch or order_already_paid took the shopper's money at the provider:
// it raises order.provider_payment_orphaned so the shop refunds it there.
export const FAILURE_REASONS = [
  "insufficient_funds",
  "dead_lettered",
  "already_issued",
  "order_not_found",
  "order_not_payable",
  "amount_mismatch",
  "coupon_unavailable",
  "payment_not_found",
  "payment_not_succeeded",
  "refund_exceeds_payment",
  "restock_not_possible",
  "order_already_paid",
  "reference_used",
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/**
 * What GET /v1/payments/:id and /v1/deposits/:id answer, whether read from Redis or from the shard, plus the
 * kind the reader checks (the response schema leaves it out).
 */
export type OperationView = Static<typeof operationResponseSchema> & { kind: MoneyOperationKind };
