import { luaScript } from "../lua-script.ts";
import { type ScriptAnswer, type ScriptAnswerReply, scriptAnswer } from "../script-answer.ts";
import { type AdmissionGate, gateArgs, gateKeys } from "./includes/admission-gate.ts";

/** One request of an enqueue-operations-n.lua call. */
export interface EnqueueOperationInput {
  admission: AdmissionGate;
  /**
   * The user's other records of the key: {p}:idem:<userId>:<Idempotency-Key> ({p}:refund-idem:<paymentId>:<…> for
   * a refund), only read; ignored when idempotencyTtlSeconds is 0.
   */
  idempotencyKey: string;
  /** QueueKeys.status: {p}:st:<bucket><tail>, also the Idempotency-Key's record. */
  statusKey: string;
  /** {p}:ops, the partition's stream. */
  streamKey: string;
  operationId: string;
  /** Hash of kind + body, compared on replays of the same Idempotency-Key. */
  fingerprint: string;
  /** 0 when the request has no Idempotency-Key. */
  idempotencyTtlSeconds: number;
  /** The message's body (encodeMessageBody): the stream entry's `m` field and the status hash's `message` field. */
  encodedMessage: string;
}

/**
 * enqueue-operations-n.lua: admission, idempotency, status and stream append of payments, deposits and refunds,
 * many in one call (on a cluster, of one partition). One answer per request, in order: code 1 accepted (value:
 * the id), 0 replay (value: the existing id), -1 conflict (value: the existing id, "" when the key's first
 * request was refused), -90/-91 refused by admission control.
 */
export const enqueueOperations = luaScript({
  file: "enqueue-operations-n.lua",
  keys: (requests: readonly EnqueueOperationInput[]) =>
    requests.flatMap((input) =>
      gateKeys(input.admission, input.statusKey, input.idempotencyKey, input.streamKey),
    ),
  args: (requests: readonly EnqueueOperationInput[]) =>
    requests.flatMap((input) =>
      gateArgs(
        input.admission,
        input.operationId,
        input.fingerprint,
        input.idempotencyTtlSeconds,
        input.encodedMessage,
      ),
    ),
  decode: (replies: ScriptAnswerReply[]): ScriptAnswer[] => replies.map(scriptAnswer),
});

/**
 * Commands whose callers gather their own batches (packages/queue enqueue-batches.ts) and send each the moment
 * it is complete: auto-pipelining would hold it back to the end of the event loop's turn, and Redis would wait
 * with it.
 */
export const SELF_BATCHED_COMMANDS: readonly string[] = [enqueueOperations.command];
