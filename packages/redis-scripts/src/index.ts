export { type AdmitRequestInput, admitRequest } from "./commands/admit-request.ts";
export { type AdmitRoomResult, admitRoom } from "./commands/admit-room.ts";
export {
  type ChangeProductInput,
  type ChangeProductResult,
  changeProduct,
} from "./commands/change-product.ts";
export {
  type ClaimDeadLetterInput,
  type ClaimDeadLetterResult,
  claimDeadLetter,
  type DeadLetterClaimAction,
} from "./commands/claim-dead-letter.ts";
export { type CommitCouponIssueInput, commitCouponIssue } from "./commands/commit-coupon-issue.ts";
export { type CommitOrderInput, commitOrder } from "./commands/commit-order.ts";
export { countRoomTraffic } from "./commands/count-room-traffic.ts";
export {
  type EndedIdleSession,
  type EndIdleSessionsInput,
  endIdleSessions,
} from "./commands/end-idle-sessions.ts";
export { type EndSessionPassInput, endSessionPass } from "./commands/end-session-pass.ts";
export { type EndSessionsInput, endSessions } from "./commands/end-sessions.ts";
export {
  type EnqueueOperationInput,
  enqueueOperations,
  FINGERPRINT_NEEDED,
} from "./commands/enqueue-operations.ts";
export {
  type FinishedStatus,
  type FinishOperationsInput,
  type FinishOperationsResult,
  finishOperations,
} from "./commands/finish-operations.ts";
export { grantPass } from "./commands/grant-pass.ts";
export { holdLeaderLease } from "./commands/hold-leader-lease.ts";
export { holdLease } from "./commands/hold-lease.ts";
export {
  type DueSession,
  type IdleSessionsDueInput,
  idleSessionsDue,
} from "./commands/idle-sessions-due.ts";
export { type AdmissionGate, roomGateArgument } from "./commands/includes/admission-gate.ts";
export { LANE_BAND, laneBand } from "./commands/includes/room-lanes.ts";
export {
  type RoomKeys,
  TICKET_STATUSES,
  type TicketReading,
  type TicketStatus,
} from "./commands/includes/room-tickets.ts";
export {
  type CouponDiscount,
  type CouponIssueRecord,
  type IssueCouponInput,
  issueCoupons,
} from "./commands/issue-coupon.ts";
export { joinRoom } from "./commands/join-room.ts";
export {
  type OrderPreQueueInput,
  type OrderPreQueueResult,
  orderPreQueue,
} from "./commands/order-pre-queue.ts";
export { readTicket } from "./commands/read-ticket.ts";
export { type RecordRefusalInput, recordRefusal } from "./commands/record-refusal.ts";
export { releaseCoupon } from "./commands/release-coupon.ts";
export {
  type EndedSessionPass,
  type ReleasedLine,
  type ReleaseOrderInput,
  type ReleaseOrderResult,
  releaseOrder,
} from "./commands/release-order.ts";
export { releaseStock } from "./commands/release-stock.ts";
export {
  type RequestOrderEndInput,
  type RequestOrderEndResult,
  requestOrderEnd,
} from "./commands/request-order-end.ts";
export {
  type CouponReservation,
  type CouponReservationKeys,
  type ReserveCouponResult,
  reserveCoupon,
} from "./commands/reserve-coupon.ts";
export {
  type OrderFields,
  type OrderKeys,
  type ReserveOrderInput,
  reserveOrders,
} from "./commands/reserve-order.ts";
export {
  type HeldStock,
  type ReserveStockResult,
  reserveStock,
  type StockReservation,
} from "./commands/reserve-stock.ts";
export { type ReturnStockInput, type ReturnStockResult, returnStock } from "./commands/return-stock.ts";
export { revokePass } from "./commands/revoke-pass.ts";
export { type RevokedTicket, revokeTicket } from "./commands/revoke-ticket.ts";
export {
  type SettleProductUnitsInput,
  type SettleProductUnitsResult,
  settleProductUnits,
} from "./commands/settle-product-units.ts";
export {
  type SettleUnpaidUnitsInput,
  type SettleUnpaidUnitsResult,
  settleUnpaidUnits,
  type UnpaidLine,
} from "./commands/settle-unpaid-units.ts";
export { type TakeTokenInput, type TakeTokenResult, takeToken } from "./commands/take-token.ts";
export {
  type TrimAcknowledgedInput,
  type TrimAcknowledgedResult,
  trimAcknowledged,
} from "./commands/trim-acknowledged.ts";
export {
  defineScripts,
  type ScriptedCluster,
  type ScriptedRedis,
  type ScriptedSingleRedis,
} from "./define-scripts.ts";
export { type LuaScript, luaScript, type ScriptArgument } from "./lua-script.ts";
export { type ScriptAnswer, type ScriptAnswerReply, scriptAnswer, scriptAnswers } from "./script-answer.ts";
export { scriptSha } from "./script-sha.ts";
export {
  MAX_REQUESTS_PER_CALL,
  type ManyRequestScript,
  ONE_REDIS_GROUP,
  SELF_BATCHED_COMMANDS,
  sendInTurn,
} from "./turn-batches.ts";
