// What a shard batch learned about orders, for the steps after its commit: give back the reservations of
// orders that ended without a sale, and schedule the expiry of orders that await payment.
import type { OrderLine, OrderSession } from "@floodgate/domain";

export interface EndedOrder {
  orderId: string;
  userId: string;
  items: Pick<OrderLine, "productId" | "quantity">[];
  couponIssueId: string | null;
  /** refunded: a refund with restock gives a paid order's units back (refunds/apply-refunds.ts). */
  status: "cancelled" | "expired" | "failed" | "refunded";
  /** The waiting-room session it was accepted with, ended with it (room-sessions.ts); null without one. */
  session?: OrderSession | null;
}

export interface AwaitingOrder {
  orderId: string;
  userId: string;
  expiresAt: number;
}

export interface OrderOutcomes {
  /** Includes orders found already ended on a redelivery: their release may not have happened. */
  ended: EndedOrder[];
  /** Includes redelivered orders still awaiting payment: their expiry job may not have been added. */
  awaiting: AwaitingOrder[];
}
