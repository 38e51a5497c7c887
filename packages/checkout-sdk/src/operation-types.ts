// What the money and order routes take and answer, as the shop page sees them. Amounts are integers in the
// deployment's minor unit (1..10^12); user ids are 1-64 characters of [A-Za-z0-9_-].

export interface PaymentRequest {
  userId: string;
  amount: number;
  /** Pays this order (the amount must be the order's). */
  orderId?: string;
  /** Reuse it to retry this payment later (another page load): the same key never pays twice. */
  idempotencyKey?: string;
}

export interface OrderLine {
  productId: string;
  quantity: number;
}

export interface OrderRequest {
  userId: string;
  items: OrderLine[];
  couponIssueId?: string;
  idempotencyKey?: string;
}

/** A 202: stored and queued; its outcome is read later (payment(id), order(id)). */
export interface AcceptedOperation {
  id: string;
  status: "pending";
  /** The key the request carried (the caller's or a generated one). */
  idempotencyKey: string;
  /** True when the key had been used with this body before: nothing new was created. */
  replayed: boolean;
}

export interface AcceptedOrder extends AcceptedOperation {
  amount: number;
}

export type OperationStatus = "pending" | "succeeded" | "failed";

export interface OperationView {
  id: string;
  userId: string;
  amount: number;
  currency: string;
  orderId?: string;
  status: OperationStatus;
  failureReason?: string;
  createdAt: string;
  completedAt?: string;
}

export type OrderStatus = "pending" | "awaiting_payment" | "paid" | "cancelled" | "expired" | "failed";

export interface OrderView {
  id: string;
  userId: string;
  status: OrderStatus;
  failureReason?: string;
  items: (OrderLine & { unitPrice: number })[];
  subtotal: number;
  discount: number;
  amount: number;
  currency: string;
  couponIssueId?: string;
  paymentId?: string;
  createdAt: string;
  expiresAt: string;
  updatedAt?: string;
}

export interface WalletView {
  userId: string;
  balance: number;
  currency: string;
}
