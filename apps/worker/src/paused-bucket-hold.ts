// Entries of buckets being moved to another shard (`./floodgate shards add`): the worker holds them (kept
// claimed by housekeeping, unacknowledged) and never applies them while their bucket is paused; once the map
// names the bucket's new shard they go to that shard's lane. The intake keeps accepting meanwhile.
import { type DecodedEntry, entryKey } from "./shard-groups.ts";

export class PausedBucketHold {
  readonly #items = new Map<string, DecodedEntry>();

  add(items: DecodedEntry[]): void {
    for (const item of items) this.#items.set(entryKey(item.entry), item);
  }

  /** Takes everything out, to be routed again by the current map (a bucket still paused comes back here). */
  takeAll(): DecodedEntry[] {
    const items = [...this.#items.values()];
    this.#items.clear();
    return items;
  }

  entries(): DecodedEntry[] {
    return [...this.#items.values()];
  }

  get size(): number {
    return this.#items.size;
  }
}
