// The payments, deposits and refunds an intake accepts in one turn of its event loop go to Redis together: one
// enqueue-operations-n.lua call for up to MAX_REQUESTS_PER_CALL of them (per partition on a Redis Cluster, where
// a script's keys share one slot), sent the moment the batch is full or at the end of the turn, whichever comes
// first. Measured (issue 30): a script call's own overhead was two thirds of a payment's Redis CPU, and with
// every request its own call the intake and Redis took turns (Redis idle while the intake parsed a wave of
// requests, the intake idle while Redis ran the wave's scripts). A full batch leaves at once so that Redis
// works on it while the intake reads the next requests.
//
// Each request still makes one round trip, answered with its own answer; what one request's script does to
// another's (a retry behind its first request, two payments of one user against the bucket) is what it would
// have done in two calls one after the other, in the order the requests arrived.

import type { ScriptAnswer } from "@floodgate/redis-scripts";
import { type EnqueueOperationInput, enqueueOperations, type ScriptedRedis } from "@floodgate/redis-scripts";

/**
 * The most requests one call carries. Small enough that Redis starts on a wave's first requests while the
 * intake still reads the rest (and a call's few hundred microseconds block no other client for long), large
 * enough that the call's overhead is spread thin.
 */
export const MAX_REQUESTS_PER_CALL = 16;

interface Waiting {
  input: EnqueueOperationInput;
  /** What the caller's promise resolves to: its answer, or what the caller makes of it (sendEnqueue's `map`). */
  map(answer: ScriptAnswer): unknown;
  resolve(outcome: unknown): void;
  reject(error: unknown): void;
}

class EnqueueBatches {
  readonly #redis: ScriptedRedis;
  /** By partition on a cluster; one batch (key -1) on one Redis, where a script may touch any key. */
  readonly #open = new Map<number, Waiting[]>();
  #flushScheduled = false;

  constructor(redis: ScriptedRedis) {
    this.#redis = redis;
  }

  send<T>(partition: number, input: EnqueueOperationInput, map: (answer: ScriptAnswer) => T): Promise<T> {
    const group = this.#redis.isCluster ? partition : -1;
    return new Promise<T>((resolve, reject) => {
      let batch = this.#open.get(group);
      if (batch === undefined) {
        batch = [];
        this.#open.set(group, batch);
      }
      batch.push({ input, map, resolve: resolve as (outcome: unknown) => void, reject });
      if (batch.length >= MAX_REQUESTS_PER_CALL) {
        this.#open.delete(group);
        this.#call(batch);
      } else if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        // After the I/O callbacks of this turn: every request read in it has joined by then.
        setImmediate(this.#flushAll);
      }
    });
  }

  readonly #flushAll = (): void => {
    this.#flushScheduled = false;
    for (const batch of this.#open.values()) this.#call(batch);
    this.#open.clear();
  };

  #call(batch: Waiting[]): void {
    let sent: Promise<ScriptAnswer[]>;
    try {
      sent = enqueueOperations.run(
        this.#redis,
        batch.map((waiting) => waiting.input),
      );
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
      return;
    }
    sent.then(
      (answers) => {
        for (let i = 0; i < batch.length; i++) {
          const waiting = batch[i]!;
          let outcome: unknown;
          try {
            outcome = waiting.map(answers[i]!);
          } catch (error) {
            waiting.reject(error);
            continue;
          }
          waiting.resolve(outcome);
        }
      },
      // The call failed whole (Redis away, out of memory, a failover): every request in it gets the error, and
      // with it the 503 that says the request may or may not have been stored.
      (error: unknown) => {
        for (const waiting of batch) waiting.reject(error);
      },
    );
  }
}

const batchesByConnection = new WeakMap<ScriptedRedis, EnqueueBatches>();

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
  let batches = batchesByConnection.get(redis);
  if (batches === undefined) {
    batches = new EnqueueBatches(redis);
    batchesByConnection.set(redis, batches);
  }
  return batches.send(partition, input, map);
}
