// After a two-step request's commit, its reservation is struck off the item's list, after the answer. At a hot
// item's rate that was one ZREM per request on the item's master, beside the reservations themselves; gathered
// per list for one turn of the event loop they are one ZREM per list per turn. Nothing waits on them: what one
// fails to strike off, the worker's sweep finds recorded and strikes off later (reservation-sweep.ts).
import type { ScriptedRedis } from "@floodgate/redis-scripts";

class StrikeOffBatch {
  readonly #redis: ScriptedRedis;
  readonly #members = new Map<string, string[]>();
  #scheduled = false;

  constructor(redis: ScriptedRedis) {
    this.#redis = redis;
  }

  add(listKey: string, member: string): void {
    const members = this.#members.get(listKey);
    if (members === undefined) this.#members.set(listKey, [member]);
    else members.push(member);
    if (this.#scheduled) return;
    this.#scheduled = true;
    // setImmediate, not a microtask: every commit answered in this turn of the loop joins the same batch.
    setImmediate(() => this.#send());
  }

  #send(): void {
    this.#scheduled = false;
    for (const [listKey, members] of this.#members) this.#redis.zrem(listKey, ...members).catch(() => {});
    this.#members.clear();
  }
}

const batches = new WeakMap<ScriptedRedis, StrikeOffBatch>();

/** Strikes `member` off the reservation list `listKey` soon, with the others of this turn; never awaited. */
export function strikeOffReservation(redis: ScriptedRedis, listKey: string, member: string): void {
  let batch = batches.get(redis);
  if (batch === undefined) {
    batch = new StrikeOffBatch(redis);
    batches.set(redis, batch);
  }
  batch.add(listKey, member);
}
