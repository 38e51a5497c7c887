import { luaScript, type ScriptArgument } from "../lua-script.ts";
import { scriptAnswers } from "../script-answer.ts";
import type { AdmissionGate } from "./includes/admission-gate.ts";

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
  /**
   * Hash of kind + body, compared on replays of the same Idempotency-Key; "" to have a payment's or deposit's
   * body and id kind compared instead (the script answers FINGERPRINT_NEEDED where only a hash will do).
   */
  fingerprint: string;
  /** 0 when the request has no Idempotency-Key. */
  idempotencyTtlSeconds: number;
  /** The message's body (encodeMessageBody): the stream entry's `m` field and the status hash's `message` field. */
  encodedMessage: string;
}

/**
 * Whether a request goes in a compact block (4 keys, 6 arguments, "c" in the layout) rather than a full one (6
 * and 11, "f"): no room guards it, so the gate reads only its user's bucket (admission_check_user). With room
 * "0" the gate reads no ticket either; a gate that names one, or a session, keeps the full block all the same,
 * so that nothing it was given is dropped.
 */
const compactGate = (gate: AdmissionGate): boolean =>
  gate.args[2] === "0" && gate.args[4] === "" && gate.session === undefined;

// The intake's hot path (issue 30): one array each for a call's keys and arguments, filled in place, none made
// per request.
const keysOf = (requests: readonly EnqueueOperationInput[]): string[] => {
  const keys: string[] = [];
  for (const input of requests) {
    const gate = input.admission.keys;
    if (compactGate(input.admission)) {
      keys.push(gate[0], input.statusKey, input.idempotencyKey, input.streamKey);
    } else {
      keys.push(gate[0], gate[1], gate[2], input.statusKey, input.idempotencyKey, input.streamKey);
    }
  }
  return keys;
};

const argsOf = (requests: readonly EnqueueOperationInput[]): ScriptArgument[] => {
  let layout = "";
  const args: ScriptArgument[] = [layout];
  for (const input of requests) {
    const gate = input.admission.args;
    if (compactGate(input.admission)) {
      layout += "c";
      args.push(gate[0], gate[1]);
    } else {
      layout += "f";
      args.push(gate[0], gate[1], gate[2], gate[3], gate[4], gate[5], gate[6]);
    }
    args.push(input.operationId, input.fingerprint, input.idempotencyTtlSeconds, input.encodedMessage);
  }
  args[0] = layout;
  return args;
};

/**
 * enqueue-operations-n.lua: admission, idempotency, status and stream append of payments, deposits and refunds,
 * many in one call (on a cluster, of one partition). One answer per request, in order: code 1 accepted (value:
 * the id), 0 replay (value: the existing id), -1 conflict (value: the existing id, "" when the key's first
 * request was refused), -2 (FINGERPRINT_NEEDED) sent without a fingerprint to a key with a record of its own,
 * -90/-91 refused by admission control.
 */
export const enqueueOperations = luaScript({
  file: "enqueue-operations-n.lua",
  keys: keysOf,
  args: argsOf,
  decode: scriptAnswers,
});

/** The answer to a request sent with fingerprint "" whose key has a record only a fingerprint compares with. */
export const FINGERPRINT_NEEDED = -2;
