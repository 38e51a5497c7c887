// A shop page's checkout: the five calls that create something, each an operation handle (operation-handle.ts),
// and the two reads a page shows. One instance per page is the intent: the admission tokens its waiting rooms
// gave are kept on it, so the order and then the payment of one shopper queue once.
import { apiRequest, type FetchFunction } from "./api-request.ts";
import { apiBaseUrl } from "./base-url.ts";
import { bearerToken, type GetToken } from "./bearer-token.ts";
import type { CheckoutContext } from "./checkout-context.ts";
import type {
  CallOptions,
  CouponIssueView,
  DepositRequest,
  MoneyOperationView,
  OrderRequest,
  OrderView,
  PaymentRequest,
  ProductView,
  WalletView,
} from "./checkout-views.ts";
import type { WebSocketConstructor } from "./json-socket.ts";
import { type Operation, type OperationSpec, startOperation } from "./operation-handle.ts";
import { type JoinRoomOptions, joinRoom, type RoomHandle } from "./room-handle.ts";

export interface CheckoutOptions {
  /** e.g. https://api.shop.example; a relative one ("" or "/api") resolves against the page in a browser.
   * createCheckout throws a TypeError at once for one that is not a URL (a relative one outside a page). */
  baseUrl: string;
  /** The bearer every call sends: in a browser, the signed-in shopper's customer token, which the shop's server
   * mints (POST /v1/customer-sessions with its server key); in a Node service, a server key. Asked once, and
   * again once when the server answers 401 token_expired. Without it no Authorization header is sent (AUTH=off). */
  getToken?: GetToken;
  /** Default: the global fetch. */
  fetch?: FetchFunction;
  /** Default: the global WebSocket; null polls only. */
  WebSocket?: WebSocketConstructor | null;
  /** Retries of a network error, a timeout, a 429 or a 503 per request (the waits grow, at least Retry-After).
   * Default 4. */
  maxRetries?: number;
  /** How long one attempt of a request may take to answer; then it is retried like a dropped connection.
   * Default 80000 (stripe-node's). */
  timeoutMs?: number;
  /** How often the polling fallback reads a status or a ticket. Default 1000. */
  pollIntervalMs?: number;
}

export interface Checkout {
  pay(request: PaymentRequest): Operation<MoneyOperationView>;
  deposit(request: DepositRequest): Operation<MoneyOperationView>;
  /** One coupon per user: the server dedupes by (coupon, user) and refuses a second with AlreadyIssuedError. */
  claimCoupon(
    couponId: string,
    options?: { userId?: string; idempotencyKey?: string } & CallOptions,
  ): Operation<CouponIssueView>;
  /** Final once the order leaves "pending": awaiting_payment (then pay it with orderId), or it failed. */
  placeOrder(request: OrderRequest): Operation<OrderView>;
  /** Final once the order has ended: cancelled, or paid/expired if that came first. */
  cancelOrder(
    orderId: string,
    options?: { userId?: string; idempotencyKey?: string } & CallOptions,
  ): Operation<OrderView>;
  product(productId: string, options?: CallOptions): Promise<ProductView>;
  /** A shopper may read only their own wallet (another user's answers 404). */
  wallet(userId: string, options?: CallOptions): Promise<WalletView>;
  /** Queues on page load: joins the room (or follows the ticket this tab already holds), tells the place and
   * the admission as events, and enterGate() takes the admission to the shop's gate. */
  joinRoom(roomId: string, options?: JoinRoomOptions): RoomHandle;
}

// The server validates every id, but only an encoded one cannot turn a stray "/" or "?" into another route.
const encoded = encodeURIComponent;

export function createCheckout(options: CheckoutOptions): Checkout {
  const context: CheckoutContext = {
    baseUrl: apiBaseUrl(options.baseUrl),
    // Called through globalThis: a browser's fetch called as a method of another object throws "Illegal invocation".
    fetch: options.fetch ?? ((url, init) => fetch(url, init)),
    WebSocket: (options.WebSocket === undefined ? globalThis.WebSocket : options.WebSocket) ?? undefined,
    maxRetries: options.maxRetries ?? 4,
    timeoutMs: options.timeoutMs ?? 80_000,
    pollIntervalMs: options.pollIntervalMs ?? 1000,
    token: options.getToken ? bearerToken(options.getToken) : undefined,
    tokens: new Map(),
    guards: new Map(),
  };
  const start = <V extends { status: string }>(
    guard: string,
    path: string,
    readPath: string,
    { userId, idempotencyKey, signal }: { userId?: string; idempotencyKey?: string } & CallOptions,
    body?: OperationSpec["body"],
    open = ["pending"],
  ) => startOperation<V>(context, { guard, path, readPath, userId, idempotencyKey, signal, body, open });
  const read = <T>(path: string, { signal }: CallOptions = {}) => apiRequest<T>(context, path, { signal });

  return {
    pay: (request) => {
      const { userId, amount, orderId } = request;
      return start("payments", "/v1/payments", "/v1/payments/", request, { userId, amount, orderId });
    },
    deposit: (request) =>
      start("deposits", `/v1/wallets/${encoded(request.userId)}/deposits`, "/v1/deposits/", request, {
        amount: request.amount,
      }),
    claimCoupon: (couponId, options = {}) =>
      start("coupon-issues", `/v1/coupons/${encoded(couponId)}/issues`, "/v1/coupon-issues/", options, {
        userId: options.userId,
      }),
    placeOrder: (request) => {
      const { userId, items, couponIssueId } = request;
      return start("orders", "/v1/orders", "/v1/orders/", request, { userId, items, couponIssueId });
    },
    cancelOrder: (orderId, options = {}) =>
      start("orders", `/v1/orders/${encoded(orderId)}/cancel`, "/v1/orders/", options, undefined, [
        "pending",
        "awaiting_payment",
      ]),
    product: (productId, options) => read(`/v1/catalog/products/${encoded(productId)}`, options),
    wallet: (userId, options) => read(`/v1/wallets/${encoded(userId)}`, options),
    joinRoom: (roomId, options) => joinRoom(context, roomId, options),
  };
}
