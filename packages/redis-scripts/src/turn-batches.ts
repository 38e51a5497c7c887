// The requests an intake sends one script in one turn of its event loop go to Redis together: one call of the
// script's many-request form (a `-n` script that runs its requests in order, each with the answer it would have
// had alone) for up to MAX_REQUESTS_PER_CALL of them, per group (a Redis Cluster partition, where a script's keys
// share one slot), sent the moment the batch is full or at the end of the turn, whichever comes first.
//
// Measured (issue 30): a script call's own overhead was two thirds of a payment's Redis CPU, and with every
// request its own call the intake and Redis took turns (Redis idle while the intake parsed a wave of requests,
// the intake idle while Redis ran the wave's scripts). A full batch leaves at once so that Redis works on it
// while the intake reads the next requests. Payments, deposits and refunds (enqueue-operations-n.lua), coupon
// issues (issue-coupon-n.lua) and orders (reserve-order-n.lua) go this way.
//
// Each request still makes one round trip, answered with its own answer; what one request's script does to
// another's (a retry behind its first request, two requests of one user against the bucket) is what it would
// have done in two calls one after the other, in the order the requests arrived.

import { enqueueOperations } from "./commands/enqueue-operations.ts";
import { issueCoupons } from "./commands/issue-coupon.ts";
import { reserveOrders } from "./commands/reserve-order.ts";
import type { ScriptedRedis } from "./define-scripts.ts";
import type { LuaScript } from "./lua-script.ts";

/**
 * The most requests one call carries. Small enough that Redis starts on a wave's first requests while the
 * intake still reads the rest (and a call's few hundred microseconds block no other client for long), large
 * enough that the call's overhead is spread thin.
 */
export const MAX_REQUESTS_PER_CALL = 16;

/**
 * The scripts sent this way, whose batches leave the moment they are complete: auto-pipelining would hold each
 * back to the end of the event loop's turn, and Redis would wait with it.
 */
export const SELF_BATCHED_COMMANDS: readonly string[] = [
  enqueueOperations.command,
  issueCoupons.command,
  reserveOrders.command,
];

/** The one group of one Redis, where a script may touch any key: a turn's requests of a script share its calls. */
export const ONE_REDIS_GROUP = -1;

/** A script that takes many requests and answers each, in order: its answer, or the error its part failed with. */
export type ManyRequestScript<Input, Answer> = LuaScript<readonly Input[], (Answer | Error)[]>;

interface Waiting<Input, Answer> {
  input: Input;
  /** What the caller's promise resolves to: its answer, or what the caller makes of it (sendInTurn's `map`). */
  map(answer: Answer): unknown;
  resolve(outcome: unknown): void;
  reject(error: unknown): void;
}

class TurnBatches<Input, Answer> {
  readonly #redis: ScriptedRedis;
  readonly #script: ManyRequestScript<Input, Answer>;
  readonly #open = new Map<number, Waiting<Input, Answer>[]>();
  #flushScheduled = false;

  constructor(redis: ScriptedRedis, script: ManyRequestScript<Input, Answer>) {
    this.#redis = redis;
    this.#script = script;
  }

  send<T>(group: number, input: Input, map: (answer: Answer) => T): Promise<T> {
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

  #call(batch: Waiting<Input, Answer>[]): void {
    let sent: Promise<(Answer | Error)[]>;
    try {
      sent = this.#script.run(
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
          const answer = answers[i]!;
          // This request's part failed on its own (includes/each-request.lua): its caller alone gets the error.
          if (answer instanceof Error) {
            waiting.reject(answer);
            continue;
          }
          let outcome: unknown;
          try {
            outcome = waiting.map(answer);
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

/** Per connection, one set of batches per script. */
const batchesByConnection = new WeakMap<ScriptedRedis, Map<string, TurnBatches<unknown, unknown>>>();

/**
 * Sends one request of `script` with the others of this turn on `redis` in `group` (its partition on a cluster;
 * ONE_REDIS_GROUP on one Redis); resolves to what `map` makes of its own answer
 * (applied as the call's answers are handed out: no promise more per request).
 */
export function sendInTurn<Input, Answer, T>(
  redis: ScriptedRedis,
  script: ManyRequestScript<Input, Answer>,
  group: number,
  input: Input,
  map: (answer: Answer) => T | PromiseLike<T>,
): Promise<T> {
  let byScript = batchesByConnection.get(redis);
  if (byScript === undefined) {
    byScript = new Map();
    batchesByConnection.set(redis, byScript);
  }
  let batches = byScript.get(script.command) as TurnBatches<Input, Answer> | undefined;
  if (batches === undefined) {
    batches = new TurnBatches(redis, script);
    byScript.set(script.command, batches as TurnBatches<unknown, unknown>);
  }
  return batches.send(group, input, map) as Promise<T>;
}
