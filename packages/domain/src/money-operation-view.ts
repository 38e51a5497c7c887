// A payment's or deposit's view, built here only: from the Redis status hash while it is recent
// (packages/queue operation-status-store.ts), from its shard row after that (the intake's read-operation.ts),
// and from the worker's decision for its webhook event's data (event-catalogue.ts). Three sources, one shape.
import type { Static } from "typebox";
import type { FailureReason, OperationStatus } from "./operation-status.ts";
import type { operationResponseSchema } from "./schemas/operation-schemas.ts";

/** The body of GET /v1/payments/:id and /v1/deposits/:id, and of the payment and deposit events. */
export type MoneyOperationBody = Static<typeof operationResponseSchema>;

/** What every source knows of the operation; absent or null fields are left out of the view. */
export interface MoneyOperationFacts {
  id: string;
  userId: string;
  amount: number;
  currency: string;
  orderId?: string | null;
  status: OperationStatus;
  /** As stored: one of FAILURE_REASONS, written by the worker. */
  failureReason?: string | null;
  /** Epoch ms or a Date. */
  createdAt: number | Date;
  completedAt?: number | Date;
}

const iso = (time: number | Date) => (typeof time === "number" ? new Date(time) : time).toISOString();

export function moneyOperationBody(facts: MoneyOperationFacts): MoneyOperationBody {
  const view: MoneyOperationBody = {
    id: facts.id,
    userId: facts.userId,
    amount: facts.amount,
    currency: facts.currency,
    status: facts.status,
    createdAt: iso(facts.createdAt),
  };
  if (facts.orderId) view.orderId = facts.orderId;
  if (facts.failureReason) view.failureReason = facts.failureReason as FailureReason;
  if (facts.completedAt !== undefined) view.completedAt = iso(facts.completedAt);
  return view;
}
