// What an operation socket sends: the very view the operation's GET route answers, read the same way.
// An `ocx_` id (a request to end an order) reports the order it ends, so its socket watches that order.
import {
  type CouponIssueView,
  couponIssueResponseSchema,
  type OperationView,
  type OrderView,
  operationResponseSchema,
  orderResponseSchema,
  type ProviderPaymentView,
  parseOperationId,
  providerPaymentResponseSchema,
  type RefundView,
  refundResponseSchema,
} from "@floodgate/domain";
import { readStatusRecord } from "@floodgate/queue";
import type { FastifyInstance } from "fastify";
import { type Caller, requireServer, visibleTo } from "../auth/caller.ts";
import { readCouponIssue } from "../coupons/read-coupon-issue.ts";
import { ProblemError } from "../errors/error-catalogue.ts";
import { readOrder } from "../orders/read-order.ts";
import { readProviderPayment } from "../provider-payments/read-provider-payment.ts";
import { readRefund } from "../refunds/read-refund.ts";
import { readOperation } from "./read-operation.ts";
import { projectOnto } from "./schema-projection.ts";

export type AnyOperationView = OperationView | CouponIssueView | OrderView | RefundView | ProviderPaymentView;

/** Statuses after which a view no longer changes (payments, deposits, coupon issues; orders). */
const FINAL_STATUSES: ReadonlySet<string> = new Set(["succeeded", "failed", "paid", "cancelled", "expired"]);

export function isFinal(view: AnyOperationView): boolean {
  return FINAL_STATUSES.has(view.status);
}

/**
 * The id whose view a socket on `id` follows: the id itself, or the order an `ocx_` id ends (known from its
 * status record while Redis holds it). ProblemError 400 for a malformed id, 404 for an unknown one.
 */
export async function watchedIdOf(app: FastifyInstance, id: string, caller: Caller): Promise<string> {
  const parsed = parseOperationId(id);
  if (parsed === null) throw new ProblemError("invalid_operation_id", { field: "id" });
  let watched = id;
  if (parsed.kind === "order_cancel") {
    const record = await readStatusRecord(app.redis, app.queueKeys, id);
    if (record?.message.kind !== "order_cancel") {
      throw new ProblemError("not_found", { field: "id", detail: `no order end request ${id}` });
    }
    watched = record.message.orderId;
  }
  // Refunds and provider payments are the shop server's, as their GETs are.
  if (parsed.kind === "refund") requireServer(caller, "watching a refund");
  if (parsed.kind === "provider_payment") requireServer(caller, "watching a provider payment");
  // A shopper watches only their own operations; another's answers as an unknown id would.
  if (caller.kind !== "server") {
    const view = await readOperationView(app, watched);
    // (A provider payment's userId may be unknown yet, but only the server watches one: refused above.)
    if ("userId" in view && view.userId !== undefined) {
      visibleTo(caller, { userId: view.userId }, "id", `operation ${id}`);
    }
  }
  return watched;
}

/**
 * The view of a watched id (never an `ocx_` one: watchedIdOf maps those to their order), as its GET route's
 * response schema serializes it.
 */
export async function readOperationView(app: FastifyInstance, id: string): Promise<AnyOperationView> {
  const parsed = parseOperationId(id);
  switch (parsed?.kind) {
    case "payment":
    case "deposit":
      return projectOnto(await readOperation(app, parsed.kind, id), operationResponseSchema) as OperationView;
    case "coupon_issue":
      return projectOnto(await readCouponIssue(app, id), couponIssueResponseSchema) as CouponIssueView;
    case "order":
      return projectOnto(await readOrder(app, id), orderResponseSchema) as OrderView;
    case "refund":
      return projectOnto(await readRefund(app, id), refundResponseSchema) as RefundView;
    case "provider_payment":
      return projectOnto(
        await readProviderPayment(app, id),
        providerPaymentResponseSchema,
      ) as ProviderPaymentView;
    default:
      throw new ProblemError("invalid_operation_id", { field: "id" });
  }
}
