// The payments, deposits and refunds an intake accepts in one turn of its event loop go to Redis together: one
// enqueue-operations-n.lua call for up to MAX_REQUESTS_PER_CALL of them, per partition on a Redis Cluster, where
// a script's keys share one slot (turn-batches.ts in @floodgate/redis-scripts says how and why).

import {
  type EnqueueOperationInput,
  enqueueOperations,
  ONE_REDIS_GROUP,
  type ScriptAnswer,
  type ScriptedRedis,
  sendInTurn,
} from "@floodgate/redis-scripts";

export { MAX_REQUESTS_PER_CALL } from "@floodgate/redis-scripts";

const asAnswered = (answer: ScriptAnswer): ScriptAnswer => answer;

/**
 * Sends one request's enqueue with the others of this turn on `redis`; resolves to its own answer, or to what
 * `map` makes of it (applied as the call's answers are handed out: no promise more per request).
 */
export function sendEnqueue(
  redis: ScriptedRedis,
  partition: number,
  input: EnqueueOperationInput,
): Promise<ScriptAnswer>;
export function sendEnqueue<T>(
  redis: ScriptedRedis,
  partition: number,
  input: EnqueueOperationInput,
  map: (answer: ScriptAnswer) => T | PromiseLike<T>,
): Promise<T>;
export function sendEnqueue(
  redis: ScriptedRedis,
  partition: number,
  input: EnqueueOperationInput,
  map: (answer: ScriptAnswer) => unknown = asAnswered,
): Promise<unknown> {
  return sendInTurn(redis, enqueueOperations, redis.isCluster ? partition : ONE_REDIS_GROUP, input, map);
}
