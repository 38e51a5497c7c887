export {
  type AdmissionCheck,
  type AdmissionInfo,
  type AdmissionRefusal,
  admissionInfo,
  admissionRefusal,
  unlimitedAdmission,
  unlimitedAdmissionIn,
  type WaitingRoomRefusalReason,
} from "./admission-check.ts";
export { deleteCouponState, readIssuedCounts, writeCouponState } from "./coupon-state.ts";
export {
  type DeadLetter,
  deadLettersNow,
  entryIdTime,
  findDeadLetters,
  readDeadLetters,
} from "./dead-letter-store.ts";
export { type EnqueueOutcome, type EnqueueRequest, enqueueOperation } from "./enqueue-operation.ts";
export { issueCoupon } from "./issue-coupon.ts";
export { IssueCouponCode, type IssueCouponOutcome } from "./issue-coupon-outcome.ts";
export { adoptLegacyDeadLetters, legacyDeadLetterStream } from "./legacy-dead-letters.ts";
export {
  type FinalStatus,
  type FinishedOperations,
  finishOperations,
  type OrderChange,
  queueFinishedOperations,
  readOperationStatus,
  readRefundStatus,
  readStatusRecord,
  type StatusChange,
  type StatusRecord,
} from "./operation-status-store.ts";
export { PartitionBackoff } from "./partition-backoff.ts";
export * from "./product-state.ts";
export { CONSUMER_GROUP, QueueKeys } from "./queue-keys.ts";
export { readNewEntries } from "./read-new-entries.ts";
export { ORDER_STATE_GRACE_SECONDS, type OrderRelease, releaseOrders } from "./release-order.ts";
export { type OrderEndOutcome, requestOrderEnd } from "./request-order-end.ts";
export {
  SWEEP_AFTER_MS,
  type SweepResult,
  sweepCouponReservations,
  sweepStockReservations,
} from "./reservation-sweep.ts";
export { reserveOrder } from "./reserve-order.ts";
export {
  type OverLimitLine,
  ReserveOrderCode,
  type ReserveOrderOutcome,
  type ShortLine,
} from "./reserve-order-outcome.ts";
export { NO_COUPON, type ReserveOrderRequest } from "./reserve-order-request.ts";
export {
  type DeadLetterAction,
  partitionOf,
  type SettleOutcome,
  settleDeadLetter,
} from "./settle-dead-letter.ts";
export { type PaidOrder, settlePaidOrders } from "./settle-unpaid-units.ts";
export {
  claimStaleEntries,
  ensureConsumerGroups,
  groupByPartition,
  isMissingGroup,
  keepEntriesClaimed,
  leaveConsumerGroup,
  PartialReadError,
  type StreamEntry,
  trimAcknowledgedEntries,
} from "./stream-consumer.ts";
export { readStreamInfo, type StreamInfo, workerGroup } from "./stream-info.ts";
export {
  COMMIT_WINDOW_MS,
  CommitTooLateError,
  reservationMember,
  stockReservationMember,
} from "./two-step-request.ts";
