// @floodgate/checkout-sdk: a shop page's (or a Node 20+ service's) client for Floodgate's checkout API, its
// waiting rooms and its operations' final statuses. No runtime dependencies: fetch, WebSocket and crypto come
// from the platform.
export type { FetchFunction } from "./api-request.ts";
export type { GetToken } from "./bearer-token.ts";
export type {
  CallOptions,
  CouponIssueView,
  DepositRequest,
  FailureReason,
  MoneyOperationView,
  OperationStatus,
  OrderLine,
  OrderRequest,
  OrderStatus,
  OrderView,
  PaymentRequest,
  ProductView,
  RefundView,
  WalletView,
} from "./checkout-views.ts";
export { type Checkout, type CheckoutOptions, createCheckout } from "./create-checkout.ts";
export {
  AlreadyIssuedError,
  AuthenticationError,
  ConnectionError,
  FloodgateError,
  IdempotencyConflictError,
  InsufficientFundsError,
  OutOfStockError,
  PermissionError,
  type Problem,
  RateLimitError,
  RoomSoldOutError,
  SoldOutError,
  ValidationError,
} from "./floodgate-errors.ts";
export type { SocketEvent, WebSocketConstructor, WebSocketLike } from "./json-socket.ts";
export type { Operation, OperationEvents, ResultOptions } from "./operation-handle.ts";
export type {
  JoinRoomOptions,
  RoomAdmission,
  RoomHandle,
  RoomHandleEvents,
  TicketStorage,
} from "./room-handle.ts";
export type { AdmittedEvent, PositionEvent } from "./waiting-room-queue.ts";
