// @floodgate/checkout-sdk: a shop page's (or a Node 22+ service's) client for Floodgate's checkout API and its
// waiting rooms. No runtime dependencies: fetch, WebSocket and crypto come from the platform.
export { AdmissionLostError } from "./admission-lost-error.ts";
export { FloodgateClient, type FloodgateClientOptions, type RoomOptions } from "./floodgate-client.ts";
export type { FetchFunction } from "./json-request.ts";
export type {
  AcceptedOperation,
  AcceptedOrder,
  OperationStatus,
  OperationView,
  OrderLine,
  OrderRequest,
  OrderStatus,
  OrderView,
  PaymentRequest,
  WalletView,
} from "./operation-types.ts";
export { FloodgateProblemError, type Problem } from "./problem-error.ts";
export type { SocketEvent, WebSocketConstructor, WebSocketLike } from "./ticket-socket.ts";
export type {
  Admission,
  AdmissionLossReason,
  AdmissionUpdate,
  AdmittedUpdate,
  PositionUpdate,
  TicketStatus,
  TicketView,
  UpdateSource,
} from "./ticket-types.ts";
export { WaitingRoom, type WaitingRoomOptions } from "./waiting-room.ts";
