// Payments and end requests that reached their shard before their order did (another worker is applying it
// right now): left out of their batch, they stay pending (kept claimed, so another worker takes them over if
// this one dies) and are retried with backoff until the order is there.
import { type DoublingBackoff, doublingDelayMs } from "@floodgate/backoff";
import type { OperationMessage } from "@floodgate/domain";
import type { StreamEntry } from "@floodgate/queue";
import type { Logger } from "pino";
import { type DecodedEntry, entryKey } from "./shard-groups.ts";

// First retried after 250 ms, then less and less often (a made-up order id must not cost a lookup every 250 ms
// for its whole minute).
const RETRY: DoublingBackoff = { firstMs: 250, maxMs: 5_000 };
const MAX_WAITING = 10_000; // past this many waiting messages, no more may wait (mayWait)

export class AwaitingOrderBook {
  readonly #log: Logger;
  /** Waiting messages by entryKey, with when to retry them and how often they waited. */
  readonly #waiting = new Map<string, { entry: StreamEntry; retryAt: number; attempts: number }>();
  /**
   * Entries of waiting messages being retried (in a lane until their batch settles), with their attempts so
   * far: looked up first (another worker may have applied one), and backed off further if they wait again.
   */
  readonly #retried = new Map<string, number>();

  constructor(log: Logger) {
    this.#log = log;
  }

  get size(): number {
    return this.#waiting.size;
  }

  /** Whether a message may be left out to wait for its order (bounded, so memory is). */
  mayWait(): boolean {
    return this.#waiting.size < MAX_WAITING;
  }

  /** A retried waiting message may have been applied by another worker meanwhile: the shard looks it up. */
  isRetried(item: DecodedEntry): boolean {
    return this.#retried.has(entryKey(item.entry));
  }

  /**
   * Sets aside the messages of `group` left out to wait for their order and returns the group's other entries,
   * to be acknowledged.
   */
  setAside(group: DecodedEntry[], waiting: OperationMessage[]): StreamEntry[] {
    if (waiting.length === 0) return group.map((g) => g.entry);
    // By id: a group can hold one entry twice (claimed back as stale and due for its retry in the same tick).
    const left = new Set(waiting.map((message) => message.id));
    const now = Date.now();
    for (const item of group) {
      if (!left.has(item.message.id)) continue;
      const key = entryKey(item.entry);
      const attempts = (this.#waiting.get(key)?.attempts ?? this.#retried.get(key) ?? 0) + 1;
      if (attempts === 1) {
        this.#log.debug(
          { id: item.entry.operationId, kind: item.message.kind },
          "waits for its order to reach the shard",
        );
      }
      const delay = doublingDelayMs(RETRY, attempts);
      this.#waiting.set(key, { entry: item.entry, retryAt: now + delay, attempts });
    }
    return group.filter((g) => !left.has(g.message.id)).map((g) => g.entry);
  }

  /** The waiting entries whose retry is due, moved to the retried ones. */
  takeDue(now: number): StreamEntry[] {
    const due: StreamEntry[] = [];
    for (const [key, waiting] of this.#waiting) {
      if (waiting.retryAt > now) continue;
      this.#waiting.delete(key);
      this.#retried.set(key, waiting.attempts);
      due.push(waiting.entry);
    }
    return due;
  }

  /** These entries' batch settled: they are no longer retries of a waiting message. */
  settled(items: DecodedEntry[]): void {
    for (const item of items) this.#retried.delete(entryKey(item.entry));
  }

  /** Every waiting entry, to keep claimed. */
  entries(): StreamEntry[] {
    return [...this.#waiting.values()].map((waiting) => waiting.entry);
  }
}
