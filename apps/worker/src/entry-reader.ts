// Where a worker's entries come from: entries other consumers left pending past the visibility timeout
// (claimed every half timeout), then new entries from every partition, with a linger that lets a small read
// grow into a batch. An entry once read is pending for this worker: a read that partly fails still hands over
// what it got (PartialReadError), never drops it to wait out the visibility timeout. With REDIS_WAIT_REPLICAS,
// only what a replica confirmed is handed over (replicated-entries.ts).
import { type Config, parseRedisUrl } from "@floodgate/config";
import {
  claimStaleEntries,
  PartialReadError,
  PartitionBackoff,
  type QueueKeys,
  readNewEntries,
  type StreamEntry,
} from "@floodgate/queue";
import { createRedis, type ScriptedRedis } from "@floodgate/redis-connections";
import { lingerAfterRead } from "./batch-linger.ts";
import type { ReplicatedEntries } from "./replicated-entries.ts";

const READ_BLOCK_MS = 100;
const BUSY_READ_BLOCK_MS = 20; // lanes have entries queued: come back to them soon
const CLAIM_COUNT = 100;

/**
 * The reader's connection, apart from the one lanes finish batches on (a large read's reply holds up nothing
 * there). On one Redis it blocks in XREADGROUP, so it never times out. On a cluster it never blocks
 * (read-new-entries.ts says why) and sends one read per partition at once; not auto-pipelined: measured on a
 * 3-master cluster, grouping the reads per node cost more client CPU and time than sending them one by one.
 */
export function createReaderConnection(config: Config, consumer: string): ScriptedRedis {
  const name = `floodgate-worker-${consumer}-reader`;
  return parseRedisUrl(config.redisUrl).kind === "cluster"
    ? createRedis(config.redisUrl, { name })
    : createRedis(config.redisUrl, { name, blocking: true });
}

export class EntryReader {
  readonly #config: Config;
  readonly #keys: QueueKeys;
  readonly #consumer: string;
  /** For claims (short commands). */
  readonly #redis: ScriptedRedis;
  /** For new entries (createReaderConnection), so a blocking read holds up nothing else. */
  readonly #reader: ScriptedRedis;
  /** On a cluster: partitions whose master did not answer, left out of reads for a while. */
  readonly backoff = new PartitionBackoff();
  readonly #replicated: ReplicatedEntries;
  #lastClaim = 0;

  constructor(
    config: Config,
    keys: QueueKeys,
    consumer: string,
    redis: ScriptedRedis,
    reader: ScriptedRedis,
    replicated: ReplicatedEntries,
  ) {
    this.#replicated = replicated;
    this.#config = config;
    this.#keys = keys;
    this.#consumer = consumer;
    this.#redis = redis;
    this.#reader = reader;
  }

  /** Stale entries of other consumers, at most every half visibility timeout. */
  async claimStale(now: number): Promise<StreamEntry[]> {
    if (now - this.#lastClaim < this.#config.visibilityTimeoutMs / 2) return [];
    this.#lastClaim = now;
    return this.#replicated.confirmed(this.#redis, () =>
      claimStaleEntries(
        this.#redis,
        this.#keys,
        this.#consumer,
        this.#config.visibilityTimeoutMs,
        CLAIM_COUNT,
      ),
    );
  }

  /** New entries of every partition; blocks briefly when there are none, shorter while `busy`. */
  readNew(busy: boolean): Promise<StreamEntry[]> {
    return this.#replicated.confirmed(this.#reader, () => this.#readNew(busy));
  }

  async #readNew(busy: boolean): Promise<StreamEntry[]> {
    const perPartition = Math.max(16, Math.ceil(this.#config.batchSize / this.#keys.partitions));
    const block = busy ? BUSY_READ_BLOCK_MS : READ_BLOCK_MS;
    const fresh = await readNewEntries(
      this.#reader,
      this.#keys,
      this.#consumer,
      perPartition,
      block,
      this.backoff,
    );
    // A small batch costs a transaction per shard all the same: linger so the next entries join it, the
    // longer the busier the stream (batch-linger.ts).
    const linger = lingerAfterRead(fresh.length, this.#config.lingerMs, this.#config.batchSize);
    if (linger <= 0) return fresh;
    await new Promise((resolve) => setTimeout(resolve, linger));
    try {
      const more = await readNewEntries(
        this.#reader,
        this.#keys,
        this.#consumer,
        perPartition,
        undefined,
        this.backoff,
      );
      return [...fresh, ...more];
    } catch (error) {
      // The first read's entries are pending for this worker already: hand them over with the failure.
      const more = error instanceof PartialReadError ? error.entries : [];
      const cause = error instanceof PartialReadError ? error.cause : error;
      throw new PartialReadError(
        `reading after the linger: ${(cause as Error)?.message}`,
        [...fresh, ...more],
        cause,
      );
    }
  }
}
