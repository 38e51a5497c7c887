// A provider payment's view, built here only: from the Redis status hash while it is recent, from its shard row
// after that (the intake's read-provider-payment.ts), and from the worker's decision for its orphan event's
// data. Three sources, one shape.
import type { FailureReason, OperationStatus } from "./operation-status.ts";
import type { ProviderPaymentView } from "./schemas/provider-payment-schemas.ts";

export interface ProviderPaymentFacts {
  id: string;
  orderId: string;
  /** Known once the worker found the order. */
  userId?: string | null;
  provider: string;
  reference: string;
  amount: number;
  currency: string;
  status: OperationStatus;
  failureReason?: string | null;
  /** Epoch ms or a Date. */
  createdAt: number | Date;
  completedAt?: number | Date;
}

const iso = (time: number | Date) => (typeof time === "number" ? new Date(time) : time).toISOString();

export function providerPaymentBody(facts: ProviderPaymentFacts): ProviderPaymentView {
  const view: ProviderPaymentView = {
    id: facts.id,
    orderId: facts.orderId,
    provider: facts.provider,
    reference: facts.reference,
    amount: Number(facts.amount),
    currency: facts.currency,
    status: facts.status,
    createdAt: iso(facts.createdAt),
  };
  if (facts.userId) view.userId = facts.userId;
  if (facts.failureReason) view.failureReason = facts.failureReason as FailureReason;
  if (facts.completedAt !== undefined) view.completedAt = iso(facts.completedAt);
  return view;
}
