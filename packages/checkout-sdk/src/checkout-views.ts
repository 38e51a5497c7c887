// What the calls take and what the operations' GET routes answer, as a shop page sees them. Amounts are integers
// in the deployment's minor unit; user ids are 1-64 characters of [A-Za-z0-9_-]. A shopper's calls may leave
// userId out: their user is their token's (a different one is refused 403 forbidden_user). A server key names it.
// The bodies are the server's own schemas, as server-types.ts (written from them, never by hand) declares them.
import type {
  CatalogProductBody,
  CouponIssueBody,
  DepositRequestBody,
  OrderBody,
  OrderCreateRequestBody,
  PaymentBody,
  PaymentRequestBody,
  RefundBody,
  WalletBody,
} from "./server-types.ts";

export type { FailureReason, OperationStatus, OrderStatus } from "./server-types.ts";

/** What every call takes besides its own fields. */
export interface CallOptions {
  /** Cancels the call: its request and socket, a wait before a retry, a waiting room, the status it follows.
   * The call's promises then reject with the signal's reason. What the server already accepted goes on. */
  signal?: AbortSignal;
}

export interface PaymentRequest extends CallOptions, Pick<PaymentRequestBody, "userId" | "amount"> {
  /** Pays this order (the amount must be the order's). */
  orderId?: PaymentRequestBody["orderId"];
  /** Reuse it to retry this payment later (after a reload): the same key never pays twice. Default: a UUID. */
  idempotencyKey?: string;
}

/** Only a server key may deposit (a shopper's token is refused 403 forbidden_caller). */
export interface DepositRequest extends CallOptions, Pick<DepositRequestBody, "amount"> {
  userId: string;
  idempotencyKey?: string;
}

export type OrderLine = OrderCreateRequestBody["items"][number];

export interface OrderRequest extends CallOptions, OrderCreateRequestBody {
  idempotencyKey?: string;
}

/** A payment or a deposit: GET /v1/payments/:id, /v1/deposits/:id. */
export type MoneyOperationView = PaymentBody;

/** GET /v1/coupon-issues/:id */
export type CouponIssueView = CouponIssueBody;

/** GET /v1/orders/:id */
export type OrderView = OrderBody;

/** GET /v1/refunds/:id: a refund (the shop's server makes it, with its key; a page may show it). */
export type RefundView = RefundBody;

/** GET /v1/catalog/products/:id: `available` is what new orders may still reserve. */
export type ProductView = CatalogProductBody;

export type WalletView = WalletBody;
