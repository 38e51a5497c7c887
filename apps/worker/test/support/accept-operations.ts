// Accepts operations the way the intake does (one enqueue script call each), for volume without HTTP.
import { type MoneyOperationKind, type MoneyOperationMessage, newOperationId } from "@floodgate/domain";
import { enqueueOperation, type QueueKeys, unlimitedAdmission } from "@floodgate/queue";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { bucketForUser } from "@floodgate/shard-router";
import type { AcceptedOperation } from "./ledger-assertions.ts";

export interface OperationRequest {
  kind: MoneyOperationKind;
  userId: string;
  amount: number;
}

export function operationMessage(request: OperationRequest, currency = "KRW"): MoneyOperationMessage {
  // One clock reading for id and createdAt, as the intake: a stored body's createdAt is read from the id.
  const createdAt = Date.now();
  return {
    v: 1,
    kind: request.kind,
    id: newOperationId(request.kind, bucketForUser(request.userId), createdAt),
    userId: request.userId,
    amount: request.amount,
    currency,
    createdAt,
  };
}

/** Enqueues in order per user (stream order is acceptance order), `parallel` requests at a time. */
export async function acceptOperations(
  redis: ScriptedRedis,
  keys: QueueKeys,
  requests: OperationRequest[],
  parallel = 100,
): Promise<AcceptedOperation[]> {
  const accepted: AcceptedOperation[] = [];
  for (let i = 0; i < requests.length; i += parallel) {
    const chunk = requests.slice(i, i + parallel).map((request) => operationMessage(request));
    const outcomes = await Promise.all(
      chunk.map((message) =>
        enqueueOperation(redis, keys, {
          message,
          fingerprint: message.id,
          idempotencyTtlSeconds: 60,
          admission: unlimitedAdmission(keys, message.userId),
        }),
      ),
    );
    for (const [j, outcome] of outcomes.entries()) {
      if (outcome.result !== "accepted") throw new Error(`not accepted: ${JSON.stringify(outcome)}`);
      const { id, kind, userId, amount } = chunk[j]!;
      accepted.push({ id, kind, userId, amount });
    }
  }
  return accepted;
}
