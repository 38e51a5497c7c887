import {
  encodeMessageBody,
  idempotentTail,
  type MoneyOperationMessage,
  type ProviderPaymentMessage,
  type RefundMessage,
} from "@floodgate/domain";
import { NO_REPLICA_WAIT, type ReplicaWait, sendAccepting } from "@floodgate/redis-connections";
import { FINGERPRINT_NEEDED, type ScriptAnswer, type ScriptedRedis } from "@floodgate/redis-scripts";
import {
  type AdmissionCheck,
  type AdmissionInfo,
  type AdmissionRefusal,
  admissionInfo,
  admissionRefusal,
} from "./admission-check.ts";
import { sendEnqueue } from "./enqueue-batches.ts";
import type { QueueKeys } from "./queue-keys.ts";

export type EnqueueOutcome =
  | { result: "accepted"; id: string; admission: AdmissionInfo | null }
  | { result: "replayed"; id: string; admission: AdmissionInfo | null }
  | { result: "conflict"; existingId: string }
  | AdmissionRefusal;

/** The messages the intake enqueues with this call (orders and coupon issues have scripts of their own). */
export type EnqueuedMessage = MoneyOperationMessage | RefundMessage | ProviderPaymentMessage;

export interface EnqueueRequest {
  message: EnqueuedMessage;
  /**
   * Hash of kind + body, compared on replays of the same Idempotency-Key. A payment or deposit may give it as a
   * function: it is then called only if the script asks (a key with a record of its own, from an order, a coupon
   * issue or the release before tail-keyed statuses) and the script compares the request's body and kind
   * otherwise, which say the same (issue 30: the hash was a SHA-256 per keyed request).
   */
  fingerprint: string | (() => string);
  idempotencyKey?: string;
  idempotencyTtlSeconds: number;
  /** Rate limits and the waiting room, checked in the same call. */
  admission: AdmissionCheck;
  /** REDIS_WAIT_REPLICAS: replicas that must confirm an accepted request before it counts as accepted. */
  replicaWait?: ReplicaWait;
}

/**
 * The id's tail of a request with an Idempotency-Key (idempotentTail): its retries mint ids with the same tail,
 * so they name the same status hash (QueueKeys.status), which is the key's record. Scoped as the keys are: a
 * user's payments and deposits share theirs, a refund's are its payment's, a provider payment's its order's.
 */
export function idempotentTailOf(
  kind: EnqueuedMessage["kind"],
  scope: string,
  idempotencyKey: string,
): string {
  const space = kind === "refund" ? "refund" : kind === "provider_payment" ? "provider" : "user";
  // The intake mints an id with this tail and enqueueOperation checks it in the same turn, with the same
  // strings: the second call compares them, where it would join the scope again to find idempotentTail's.
  const last = lastTailOf;
  if (last.scope === scope && last.idempotencyKey === idempotencyKey && last.space === space)
    return last.tail;
  const tail = idempotentTail(`${space}:${scope}`, idempotencyKey);
  last.space = space;
  last.scope = scope;
  last.idempotencyKey = idempotencyKey;
  last.tail = tail;
  return tail;
}

// Nothing matches it before the first call (a scope is never undefined).
const lastTailOf: { space: string; scope: string | undefined; idempotencyKey: string; tail: string } = {
  space: "",
  scope: undefined,
  idempotencyKey: "",
  tail: "",
};

/** Whose keys a message's Idempotency-Key is one of: its user's, its payment's (a refund), its order's. */
const keyScopeOf = (message: EnqueuedMessage): string =>
  message.kind === "refund"
    ? message.paymentId
    : message.kind === "provider_payment"
      ? message.orderId
      : message.userId;

/**
 * The intake's whole Redis budget for an accepted request: ONE script call (admission + idempotency + status +
 * XADD), shared with the requests of the same turn (enqueue-batches.ts), every key in the user's partition slot when no room guards. Do not add calls here; put new checks
 * inside the Lua script. (The client address's token is the one exception, and it goes out beside this call in
 * the same round trip, never before or after it: apps/intake/src/admission/address-buckets.ts.) With
 * REDIS_WAIT_REPLICAS an accepted request is answered once its master's next replica confirmation covers it
 * (replica-wait.ts in @floodgate/redis-connections).
 */
export function enqueueOperation(
  redis: ScriptedRedis,
  keys: QueueKeys,
  request: EnqueueRequest,
): Promise<EnqueueOutcome> {
  const { message } = request;
  // Only their body holds every field of their fingerprint: a refund's or provider payment's must be its hash.
  if (typeof request.fingerprint === "function" && message.kind !== "payment" && message.kind !== "deposit") {
    return Promise.reject(new Error(`a ${message.kind}'s fingerprint is its hash, not a function`));
  }
  if (request.idempotencyKey !== undefined && !mintedForKey(message, request.idempotencyKey)) {
    return Promise.reject(
      new Error(
        `operation ${message.id} has an Idempotency-Key but not its tail: mint it with idempotentTailOf`,
      ),
    );
  }
  // The id (minted by the caller with newOperationId) carries the bucket (the user's, or for a refund its
  // payment's): same partition as before for payments and deposits, and a refund goes where its payment went.
  const partition = keys.partitionForMintedOperation(message.id);
  const idempotencyKey = idempotencyKeyOf(keys, partition, message, request.idempotencyKey ?? "");
  const wait = request.replicaWait ?? NO_REPLICA_WAIT;
  const streamKey = keys.stream(partition);
  const { fingerprint } = request;
  const input = {
    admission: request.admission,
    idempotencyKey,
    statusKey: keys.status(partition, message.id),
    streamKey,
    operationId: message.id,
    // With replicas to wait for, the hash up front: a second call would need a WAIT of its own.
    fingerprint: typeof fingerprint === "string" ? fingerprint : wait.replicas === 0 ? "" : fingerprint(),
    idempotencyTtlSeconds: request.idempotencyKey === undefined ? 0 : request.idempotencyTtlSeconds,
    encodedMessage: encodeMessageBody(message),
  };
  if (wait.replicas > 0) {
    return sendAccepting(redis, wait, streamKey, () => sendEnqueue(redis, partition, input)).then(
      enqueueOutcomeOf,
    );
  }
  // One promise between the script's answer and the caller (issue 30: each async layer was a measurable share
  // of a request).
  if (typeof fingerprint === "string") return sendEnqueue(redis, partition, input, enqueueOutcomeOf);
  return sendEnqueue(redis, partition, input, (answer) =>
    answer.code === FINGERPRINT_NEEDED
      ? sendEnqueue(redis, partition, { ...input, fingerprint: fingerprint() }, enqueueOutcomeOf)
      : enqueueOutcomeOf(answer),
  );
}

const enqueueOutcomeOf = ({ code, value: id, admission }: ScriptAnswer): EnqueueOutcome => {
  if (code === 1) return { result: "accepted", id, admission: admissionInfo(admission) };
  if (code === 0) return { result: "replayed", id, admission: admissionInfo(admission) };
  // Only a fingerprint given as "" gets here (a function's is sent again above): a caller's bug, not a conflict.
  if (code === FINGERPRINT_NEEDED) throw new Error('enqueue sent a keyed request with fingerprint ""');
  return admissionRefusal(code, id) ?? { result: "conflict", existingId: id };
};

/**
 * A keyed request's id must end in its key's tail: its status hash is the key's record, and a retry looks for it
 * there. An id minted otherwise would make every retry a new operation, so it is refused before anything is sent.
 */
function mintedForKey(message: EnqueuedMessage, idempotencyKey: string): boolean {
  return message.id.endsWith(idempotentTailOf(message.kind, keyScopeOf(message), idempotencyKey));
}

/**
 * Whose Idempotency-Keys a request's key is one of. A user's for payments and deposits. A refund has no user at
 * the edge (only its payment id, and the server key that sent it), so its keys are scoped by payment: in the
 * payment's partition (one slot with the stream), and a key reused for another payment is another refund, not
 * a 422. A provider payment's are its order's, likewise. The kinds live under different segments
 * (queue-keys.ts), so they never meet.
 */
function idempotencyKeyOf(
  keys: QueueKeys,
  partition: number,
  message: EnqueuedMessage,
  idempotencyKey: string,
): string {
  if (message.kind === "refund") return keys.refundIdempotency(partition, message.paymentId, idempotencyKey);
  if (message.kind === "provider_payment") {
    return keys.providerPaymentIdempotency(partition, message.orderId, idempotencyKey);
  }
  return keys.idempotency(partition, message.userId, idempotencyKey);
}
