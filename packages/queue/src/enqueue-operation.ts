import { encodeOperationMessage, type MoneyOperationMessage } from "@floodgate/domain";
import type { ScriptedRedis } from "@floodgate/redis-scripts";
import type { QueueKeys } from "./queue-keys.ts";

export type EnqueueOutcome =
  | { result: "accepted"; id: string }
  | { result: "replayed"; id: string }
  | { result: "conflict"; existingId: string };

export interface EnqueueRequest {
  message: MoneyOperationMessage;
  /** Hash of kind + body, compared on replays of the same Idempotency-Key. */
  fingerprint: string;
  idempotencyKey?: string;
  idempotencyTtlSeconds: number;
}

/**
 * The intake's whole Redis budget for an accepted request: ONE script call (idempotency + status + XADD).
 * Do not add calls here; put new checks inside the Lua script.
 */
export async function enqueueOperation(
  redis: ScriptedRedis,
  keys: QueueKeys,
  request: EnqueueRequest,
): Promise<EnqueueOutcome> {
  const { message } = request;
  const partition = keys.partitionForUser(message.userId);
  const idempotencyKey = keys.idempotency(partition, message.userId, request.idempotencyKey ?? "");
  const [code, id] = await redis.enqueueOperation(
    idempotencyKey,
    keys.status(partition, message.id),
    keys.stream(partition),
    message.id,
    request.fingerprint,
    request.idempotencyKey === undefined ? 0 : request.idempotencyTtlSeconds,
    encodeOperationMessage(message),
  );
  if (code === 1) return { result: "accepted", id };
  if (code === 0) return { result: "replayed", id };
  return { result: "conflict", existingId: id };
}
