// The work queue: the Redis key layout (QueueKeys: every key, in the slots of the partitions the streams are cut
// into), the admission block every accepting script takes first, enqueue, the streams' consumer groups, the
// operations' statuses and the dead letters. Reservations (@floodgate/reservations) build on it; the connections
// (@floodgate/redis-connections) sit below it.
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
export {
  type DeadLetter,
  deadLettersNow,
  entryIdTime,
  findDeadLetters,
  readDeadLetters,
} from "./dead-letter-store.ts";
export { MAX_REQUESTS_PER_CALL } from "./enqueue-batches.ts";
export {
  type EnqueuedMessage,
  type EnqueueOutcome,
  type EnqueueRequest,
  enqueueOperation,
  idempotentTailOf,
} from "./enqueue-operation.ts";
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
  type StatusTtls,
  statusTtls,
} from "./operation-status-store.ts";
export { PartitionBackoff } from "./partition-backoff.ts";
export { CONSUMER_GROUP, isTailKeyed, QueueKeys } from "./queue-keys.ts";
export { readNewEntries } from "./read-new-entries.ts";
export {
  type DeadLetterAction,
  partitionOf,
  type SettleOutcome,
  settleDeadLetter,
} from "./settle-dead-letter.ts";
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
