// Recent statuses live in Redis (Kakao Pay's lesson in seeds/003: status checks must not hit the database).
// The hash holds `status` and the `message` (a payment's, deposit's or refund's as a body with its `id` beside
// it, and `fp` when it is also its Idempotency-Key's record: enqueue-operations-n.lua); the worker adds
// `completedAt` and `failureReason`. A pending status has no TTL; the worker gives the final one
// STATUS_TTL_SECONDS (IDEMPOTENCY_TTL_SECONDS for a key's record), after which reads go to the owning shard.
import {
  decodeOperationMessage,
  type FailureReason,
  moneyOperationBody,
  type OperationMessage,
  type OperationStatus,
  type OperationView,
  type RefundView,
} from "@floodgate/domain";
import {
  type FinishOperationsInput,
  finishOperations as finishOperationsScript,
  type ScriptedRedis,
} from "@floodgate/redis-scripts";
import type { ChainableCommander } from "ioredis";
import { CONSUMER_GROUP, isTailKeyed, type QueueKeys } from "./queue-keys.ts";
import type { StreamEntry } from "./stream-consumer.ts";

export interface FinalStatus {
  id: string;
  status: Exclude<OperationStatus, "pending">;
  failureReason?: FailureReason;
  completedAt: number;
}

/** A status hash as stored, whatever the operation's kind. */
export interface StatusRecord {
  message: OperationMessage;
  status: OperationStatus;
  failureReason?: FailureReason;
  completedAt?: number;
}

export async function readStatusRecord(
  redis: ScriptedRedis,
  keys: QueueKeys,
  operationId: string,
): Promise<StatusRecord | null> {
  const partition = keys.partitionForOperation(operationId);
  if (partition === null) return null;
  let hash = await redis.hgetall(keys.status(partition, operationId));
  if (isTailKeyed(operationId) && hash.id !== operationId) {
    // Another id of the same tail (a made-up one, or a retry's whose key was first used at another time) is
    // not this operation; an operation accepted before tail-keyed statuses is where it was.
    hash = hash.id === undefined ? await redis.hgetall(keys.formerStatus(partition, operationId)) : {};
  }
  if (!hash.status || !hash.message) return null;
  const record: StatusRecord = {
    message: decodeOperationMessage(hash.message, operationId),
    status: hash.status as OperationStatus,
  };
  if (hash.failureReason) record.failureReason = hash.failureReason as FailureReason;
  if (hash.completedAt) record.completedAt = Number(hash.completedAt);
  return record;
}

/** A payment's or deposit's view; null when Redis no longer holds it (or it is of another kind). */
export async function readOperationStatus(
  redis: ScriptedRedis,
  keys: QueueKeys,
  operationId: string,
): Promise<OperationView | null> {
  const record = await readStatusRecord(redis, keys, operationId);
  if (record === null) return null;
  const { message } = record;
  if (message.kind !== "payment" && message.kind !== "deposit") return null;
  const view = moneyOperationBody({
    ...message,
    id: operationId,
    status: record.status,
    failureReason: record.failureReason,
    completedAt: record.completedAt,
  });
  return { ...view, kind: message.kind };
}

/** A refund's view as Redis holds it; null when Redis no longer holds it (or it is of another kind). */
export async function readRefundStatus(
  redis: ScriptedRedis,
  keys: QueueKeys,
  refundId: string,
): Promise<RefundView | null> {
  const record = await readStatusRecord(redis, keys, refundId);
  if (record === null || record.message.kind !== "refund") return null;
  const { message } = record;
  const view: RefundView = {
    id: refundId,
    paymentId: message.paymentId,
    currency: message.currency,
    restock: message.restock ?? false,
    status: record.status,
    createdAt: new Date(message.createdAt).toISOString(),
  };
  if (message.amount !== undefined) view.amount = message.amount;
  if (message.reason !== undefined) view.reason = message.reason;
  if (record.failureReason) view.failureReason = record.failureReason;
  if (record.completedAt !== undefined) view.completedAt = new Date(record.completedAt).toISOString();
  return view;
}

/** An order another operation moved: the payment that paid it, or the end request that may have ended it. */
export interface OrderChange {
  id: string;
  changedBy: string;
}

/**
 * What the status channel carries: one JSON array per publish, each entry naming an operation whose view
 * changed (its own final status, or an OrderChange). Subscribers (the intake's operation sockets) re-read
 * the views they watch; the entry says which, not what the view now is.
 */
export type StatusChange = FinalStatus | OrderChange;

/**
 * How long a final status stays in Redis: STATUS_TTL_SECONDS, and IDEMPOTENCY_TTL_SECONDS for a status hash that
 * is also its Idempotency-Key's record (when longer). A number sets both.
 */
export type StatusTtls = number | { statusTtlSeconds: number; idempotencyTtlSeconds: number };

/** A deployment's StatusTtls. */
export const statusTtls = (config: {
  statusTtlSeconds: number;
  idempotencyTtlSeconds: number;
}): StatusTtls => ({
  statusTtlSeconds: config.statusTtlSeconds,
  idempotencyTtlSeconds: config.idempotencyTtlSeconds,
});

/** What a batch finished: final statuses, entries to acknowledge, and orders its operations changed. */
export interface FinishedOperations {
  statuses: FinalStatus[];
  acknowledged: StreamEntry[];
  changedOrders?: OrderChange[];
}

/**
 * Writes the final statuses and acknowledges the entries with one finish-operations-n.lua call per partition
 * (each in its partition's slot, so it runs on a cluster), all at once, then publishes every change once all
 * of them answered: a subscriber that hears of a change finds it written, whichever node holds it. Returns how
 * many entries were acknowledged. A failure leaves some partitions finished and others not; the caller retries
 * the whole batch (every step is idempotent) and the publish goes out with the retry.
 */
export async function finishOperations(
  redis: ScriptedRedis,
  keys: QueueKeys,
  finished: FinishedOperations,
  ttls: StatusTtls,
): Promise<number> {
  const acked = await Promise.all(
    finishCalls(keys, finished, ttls).map((call) => finishOperationsScript.run(redis, call)),
  );
  const changes = statusChanges(finished);
  if (changes.length > 0) await redis.publish(keys.statusChannel(), JSON.stringify(changes));
  return acked.reduce((sum, { acknowledged }) => sum + acknowledged, 0);
}

/**
 * The same as finishOperations, added to a pipeline or MULTI: per partition one script call, then one publish
 * of every change. On a cluster only for finished operations of a single partition (a pipeline may not span
 * slots, and the publish must come after the statuses).
 */
export function queueFinishedOperations(
  pipeline: ChainableCommander,
  keys: QueueKeys,
  finished: FinishedOperations,
  ttls: StatusTtls,
): void {
  for (const call of finishCalls(keys, finished, ttls)) finishOperationsScript.queue(pipeline, call);
  const changes = statusChanges(finished);
  if (changes.length > 0) pipeline.publish(keys.statusChannel(), JSON.stringify(changes));
}

/** finish-operations-n.lua's input, one call per partition that has statuses or entries. */
function finishCalls(
  keys: QueueKeys,
  finished: FinishedOperations,
  ttls: StatusTtls,
): FinishOperationsInput[] {
  const { statusTtlSeconds, idempotencyTtlSeconds } =
    typeof ttls === "number" ? { statusTtlSeconds: ttls, idempotencyTtlSeconds: ttls } : ttls;
  const byPartition = new Map<number, { statuses: FinalStatus[]; entryIds: string[] }>();
  const partitionOf = (partition: number) => {
    let group = byPartition.get(partition);
    if (!group) {
      group = { statuses: [], entryIds: [] };
      byPartition.set(partition, group);
    }
    return group;
  };
  for (const final of finished.statuses) {
    const partition = keys.partitionForOperation(final.id);
    if (partition !== null) partitionOf(partition).statuses.push(final);
  }
  for (const entry of finished.acknowledged) partitionOf(entry.partition).entryIds.push(entry.entryId);
  return [...byPartition].map(([partition, { statuses, entryIds }]) => ({
    streamKey: keys.stream(partition),
    group: CONSUMER_GROUP,
    statusTtlSeconds,
    idempotencyTtlSeconds,
    entryIds,
    statuses: statuses.map((final) => ({
      statusKey: keys.status(partition, final.id),
      formerStatusKey: isTailKeyed(final.id) ? keys.formerStatus(partition, final.id) : undefined,
      status: final.status,
      completedAt: final.completedAt,
      failureReason: final.failureReason,
    })),
  }));
}

function statusChanges(finished: FinishedOperations): StatusChange[] {
  return [...finished.statuses, ...(finished.changedOrders ?? [])];
}
