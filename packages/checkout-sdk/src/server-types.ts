// Written by scripts/server-types.ts from the server's schemas (@floodgate/domain): do not edit. After a
// schema changes, `pnpm --filter @floodgate/checkout-sdk generate`; the build and test/server-types.test.ts
// fail while this file differs from what the script writes.

/** A payment's, deposit's, coupon issue's or refund's status. */
export type OperationStatus = "pending" | "succeeded" | "failed";

/** `pending` while the order is queued; the rest as its shard holds it. */
export type OrderStatus =
  | "pending"
  | "awaiting_payment"
  | "paid"
  | "cancelled"
  | "expired"
  | "failed"
  | "refunded"
  | "partially_refunded";

/** Why an operation failed (its `failureReason`). */
export type FailureReason =
  | "insufficient_funds"
  | "dead_lettered"
  | "already_issued"
  | "order_not_found"
  | "order_not_payable"
  | "amount_mismatch"
  | "coupon_unavailable"
  | "payment_not_found"
  | "payment_not_succeeded"
  | "refund_exceeds_payment"
  | "restock_not_possible"
  | "order_already_paid"
  | "reference_used";

/** GET /v1/payments/:id, /v1/deposits/:id: a payment or a deposit. */
export interface PaymentBody {
  id: string;
  userId: string;
  amount: number;
  currency: string;
  orderId?: string;
  status: OperationStatus;
  failureReason?: FailureReason;
  createdAt: string;
  completedAt?: string;
}

/** GET /v1/coupon-issues/:id */
export interface CouponIssueBody {
  id: string;
  couponId: string;
  userId: string;
  status: OperationStatus;
  failureReason?: FailureReason;
  createdAt: string;
  completedAt?: string;
}

/** GET /v1/orders/:id */
export interface OrderBody {
  id: string;
  userId: string;
  status: OrderStatus;
  failureReason?: string;
  items: {
    productId: string;
    quantity: number;
    unitPrice: number;
  }[];
  subtotal: number;
  discount: number;
  amount: number;
  currency: string;
  couponIssueId?: string;
  paymentId?: string;
  provider?: string;
  reference?: string;
  createdAt: string;
  expiresAt: string;
  updatedAt?: string;
}

/** GET /v1/refunds/:id */
export interface RefundBody {
  id: string;
  paymentId: string;
  amount?: number;
  currency: string;
  reason?: string;
  restock: boolean;
  status: OperationStatus;
  failureReason?: FailureReason;
  createdAt: string;
  completedAt?: string;
}

/** GET /v1/catalog/products/:productId */
export interface CatalogProductBody {
  id: string;
  name: string;
  price: number;
  currency: string;
  available: number;
}

/** GET /v1/wallets/:userId */
export interface WalletBody {
  userId: string;
  balance: number;
  currency: string;
}

/** POST /v1/payments */
export interface PaymentRequestBody {
  userId?: string;
  amount: number;
  currency?: string;
  orderId?: string;
}

/** POST /v1/wallets/:userId/deposits */
export interface DepositRequestBody {
  amount: number;
  currency?: string;
}

/** POST /v1/orders */
export interface OrderCreateRequestBody {
  userId?: string;
  items: {
    productId: string;
    quantity: number;
  }[];
  couponIssueId?: string;
}

/** POST /v1/coupons/:couponId/issues */
export interface CouponIssueRequestBody {
  userId?: string;
}
