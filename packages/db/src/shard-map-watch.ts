// A process's copy of the shard map, kept fresh by polling the map's version in the global database: one
// one-row read every POLL_MS per process (never per request or per batch), and the full map (a few ranges)
// read again only when the version moved. Polling rather than Redis pub/sub: the truth is in Postgres, a
// missed message cannot leave a process on an old map, and a change is seen within POLL_MS.
import type { Kysely } from "kysely";
import {
  type RecordedShardMap,
  readShardMap,
  readShardMapVersion,
  ShardMapError,
} from "./shard-map-store.ts";
import type { GlobalDatabase } from "./shard-tables.ts";
import { storeUnavailable } from "./store-unavailable-error.ts";

export const SHARD_MAP_POLL_MS = 250;

export interface ShardMapWatchOptions {
  pollMs?: number;
  /**
   * A poll that failed (the global database away, or a map naming a shard this process does not list): the last
   * map is kept and the next poll tries again. Called once per distinct failure, not at every poll.
   */
  onError?: (error: Error) => void;
  /** The map changed (a new version was read). */
  onChange?: (map: RecordedShardMap) => void;
}

export class ShardMapWatch {
  readonly #global: Kysely<GlobalDatabase>;
  readonly #shardCount: number;
  readonly #options: ShardMapWatchOptions;
  #current: RecordedShardMap;
  #timer: NodeJS.Timeout | undefined;
  #refreshing: Promise<RecordedShardMap> | undefined;
  #lastError: string | undefined;

  private constructor(
    global: Kysely<GlobalDatabase>,
    shardCount: number,
    first: RecordedShardMap,
    options: ShardMapWatchOptions,
  ) {
    this.#global = global;
    this.#shardCount = shardCount;
    this.#current = first;
    this.#options = options;
  }

  /**
   * Reads the map once, then polls. A process must not route without it: while the global database cannot be
   * read this waits (retrying every second, onError once); a map SHARD_URLS cannot serve (ShardMapError) or a
   * database never migrated throws.
   */
  static async start(
    global: Kysely<GlobalDatabase>,
    shardCount: number,
    options: ShardMapWatchOptions = {},
  ): Promise<ShardMapWatch> {
    let first: RecordedShardMap | undefined;
    for (let attempt = 0; !first; attempt++) {
      try {
        first = await readShardMap(global, shardCount);
      } catch (error) {
        if (error instanceof ShardMapError || !storeUnavailable(error, "postgres")) throw error;
        if (attempt === 0) options.onError?.(error as Error);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
    const watch = new ShardMapWatch(global, shardCount, first, options);
    watch.#schedule();
    return watch;
  }

  get current(): RecordedShardMap {
    return this.#current;
  }

  /** Reads the version now (and the map if it moved); concurrent callers share one read. */
  refresh(): Promise<RecordedShardMap> {
    this.#refreshing ??= this.#poll().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #poll(): Promise<RecordedShardMap> {
    const version = await readShardMapVersion(this.#global);
    if (version !== this.#current.version) {
      this.#current = await readShardMap(this.#global, this.#shardCount);
      this.#options.onChange?.(this.#current);
    }
    return this.#current;
  }

  #schedule(): void {
    this.#timer = setTimeout(() => {
      this.refresh()
        .then(
          () => {
            this.#lastError = undefined;
          },
          (error: Error) => {
            if (error.message !== this.#lastError) this.#options.onError?.(error);
            this.#lastError = error.message;
          },
        )
        .finally(() => {
          if (this.#timer) this.#schedule();
        });
    }, this.#options.pollMs ?? SHARD_MAP_POLL_MS);
    this.#timer.unref();
  }
}
