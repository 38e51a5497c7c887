import { encodeOperationMessage, type MoneyOperationMessage } from "@floodgate/domain";
import type { ScriptedRedis } from "@floodgate/redis-scripts";
import {
  type AdmissionCheck,
  type AdmissionInfo,
  type AdmissionRefusal,
  admissionInfo,
  admissionRefusal,
} from "./admission-check.ts";
import type { QueueKeys } from "./queue-keys.ts";

export type EnqueueOutcome =
  | { result: "accepted"; id: string; admission: AdmissionInfo | null }
  | { result: "replayed"; id: string; admission: AdmissionInfo | null }
  | { result: "conflict"; existingId: string }
  | AdmissionRefusal;

export interface EnqueueRequest {
  message: MoneyOperationMessage;
  /** Hash of kind + body, compared on replays of the same Idempotency-Key. */
  fingerprint: string;
  idempotencyKey?: string;
  idempotencyTtlSeconds: number;
  /** Rate limits and the waiting room, checked in the same call. */
  admission: AdmissionCheck;
}

/**
 * The intake's whole Redis budget for an accepted request: ONE script call (admission + idempotency + status +
 * XADD). Do not add calls here; put new checks inside the Lua script.
 */
export async function enqueueOperation(
  redis: ScriptedRedis,
  keys: QueueKeys,
  request: EnqueueRequest,
): Promise<EnqueueOutcome> {
  const { message } = request;
  const partition = keys.partitionForUser(message.userId);
  const idempotencyKey = keys.idempotency(partition, message.userId, request.idempotencyKey ?? "");
  const [code, id, admission] = await redis.enqueueOperation(
    ...request.admission.keys,
    idempotencyKey,
    keys.status(partition, message.id),
    keys.stream(partition),
    ...request.admission.args,
    message.id,
    request.fingerprint,
    request.idempotencyKey === undefined ? 0 : request.idempotencyTtlSeconds,
    encodeOperationMessage(message),
  );
  if (code === 1) return { result: "accepted", id, admission: admissionInfo(admission) };
  if (code === 0) return { result: "replayed", id, admission: admissionInfo(admission) };
  return admissionRefusal(code, id) ?? { result: "conflict", existingId: id };
}
