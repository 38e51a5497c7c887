// One shard's work in a worker: the entries waiting for it, in stream order, and at most one batch in flight.
// Lanes are what keeps a slow or frozen shard to itself: the worker goes on reading and the other lanes go on
// applying and acknowledging, while this lane's entries stay pending (kept claimed) until its shard answers.
import { type DecodedEntry, entryKey } from "./shard-groups.ts";

/** A lane whose batch has been in flight this long, or that backs off, holds entries no worker can drain. */
export const STALLED_AFTER_MS = 2000;

const keyOf = (item: DecodedEntry) => entryKey(item.entry);

export class ShardLane {
  readonly shard: number;
  /** Failed attempts in a row (0 once a batch commits); the backoff grows with it. */
  attempts = 0;
  retryAt = 0;
  /** The shard map version its queued entries were routed by; undefined: to be routed again. */
  mapVersion: number | undefined;
  #queued: DecodedEntry[] = [];
  #inFlight: DecodedEntry[] = [];
  /** Entries queued or in flight (entryKey): a claim of an entry this lane already holds must not apply it twice. */
  readonly #ids = new Set<string>();
  #running: Promise<void> | undefined;
  #startedAt = 0;

  constructor(shard: number) {
    this.shard = shard;
  }

  /** Appends in stream order; entries already held here are skipped. */
  add(items: DecodedEntry[]): void {
    for (const item of items) {
      const key = keyOf(item);
      if (this.#ids.has(key)) continue;
      this.#ids.add(key);
      this.#queued.push(item);
    }
  }

  get running(): Promise<void> | undefined {
    return this.#running;
  }

  get queuedCount(): number {
    return this.#queued.length;
  }

  ready(now: number): boolean {
    return this.#running === undefined && this.#queued.length > 0 && this.retryAt <= now;
  }

  stalled(now: number): boolean {
    return this.attempts > 0 || (this.#running !== undefined && now - this.#startedAt >= STALLED_AFTER_MS);
  }

  /** Starts `run` on the next `max` queued entries; it must settle every one (done or giveBack). */
  start(max: number, run: (group: DecodedEntry[]) => Promise<void>): void {
    const group = this.#queued.splice(0, max);
    this.#inFlight = group;
    this.#startedAt = Date.now();
    this.#running = run(group).finally(() => {
      this.#running = undefined;
      this.#inFlight = [];
    });
  }

  /** These entries leave the lane: acknowledged, waiting for their order, or left for redelivery. */
  done(items: DecodedEntry[]): void {
    for (const item of items) this.#ids.delete(keyOf(item));
  }

  /** The shard (or a store around it) failed: these go back to the front, in order, and wait `backoffMs`. */
  giveBack(items: DecodedEntry[], backoffMs: number): void {
    // The failed transaction may have committed before its answer was lost: the retry looks the ids up.
    for (const item of items) item.attempted = true;
    this.#queued = [...items, ...this.#queued];
    // They were routed before the batch ran: the map may have moved their bucket meanwhile (or fenced it).
    this.mapVersion = undefined;
    this.retryAt = Date.now() + backoffMs;
  }

  /** Takes every queued entry out (not the batch in flight), to be routed again by a newer map. */
  takeQueued(): DecodedEntry[] {
    const items = this.#queued;
    this.#queued = [];
    for (const item of items) this.#ids.delete(keyOf(item));
    return items;
  }

  /** Everything this lane holds (queued and in flight), to keep claimed. */
  held(): DecodedEntry[] {
    return [...this.#inFlight, ...this.#queued];
  }

  get heldCount(): number {
    return this.#ids.size;
  }
}
