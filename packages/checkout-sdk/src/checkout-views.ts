// What the calls take and what the operations' GET routes answer, as a shop page sees them. Amounts are integers
// in the deployment's minor unit; user ids are 1-64 characters of [A-Za-z0-9_-]. A shopper's calls may leave
// userId out: their user is their token's (a different one is refused 403 forbidden_user). A server key names it.

/** What every call takes besides its own fields. */
export interface CallOptions {
  /** Cancels the call: its request and socket, a wait before a retry, a waiting room, the status it follows.
   * The call's promises then reject with the signal's reason. What the server already accepted goes on. */
  signal?: AbortSignal;
}

export interface PaymentRequest extends CallOptions {
  userId?: string;
  amount: number;
  /** Pays this order (the amount must be the order's). */
  orderId?: string;
  /** Reuse it to retry this payment later (after a reload): the same key never pays twice. Default: a UUID. */
  idempotencyKey?: string;
}

/** Only a server key may deposit (a shopper's token is refused 403 forbidden_caller). */
export interface DepositRequest extends CallOptions {
  userId: string;
  amount: number;
  idempotencyKey?: string;
}

export interface OrderLine {
  productId: string;
  quantity: number;
}

export interface OrderRequest extends CallOptions {
  userId?: string;
  items: OrderLine[];
  couponIssueId?: string;
  idempotencyKey?: string;
}

/** A payment or a deposit: GET /v1/payments/:id, /v1/deposits/:id. */
export interface MoneyOperationView {
  id: string;
  userId: string;
  amount: number;
  currency: string;
  orderId?: string;
  status: "pending" | "succeeded" | "failed";
  failureReason?: string;
  createdAt: string;
  completedAt?: string;
}

/** GET /v1/coupon-issues/:id */
export interface CouponIssueView {
  id: string;
  couponId: string;
  userId: string;
  status: "pending" | "succeeded" | "failed";
  failureReason?: string;
  createdAt: string;
  completedAt?: string;
}

export type OrderStatus = "pending" | "awaiting_payment" | "paid" | "cancelled" | "expired" | "failed";

/** GET /v1/orders/:id */
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

/** GET /v1/catalog/products/:id: `available` is what new orders may still reserve. */
export interface ProductView {
  id: string;
  name: string;
  price: number;
  currency: string;
  available: number;
}

export interface WalletView {
  userId: string;
  balance: number;
  currency: string;
}
