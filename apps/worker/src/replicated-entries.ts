// REDIS_WAIT_REPLICAS on the worker's side: an entry is applied only once a replica of the master it was read
// from has it. The intake answers 503 (not 202) for a request its master stored but no replica confirmed, and
// the shop retries it with the same Idempotency-Key. If that master is cut from its replicas and one of them is
// promoted, the retry reaches a master that never saw the first request and stores it again under a new id: a
// worker that had applied the first one from the old master would make two payments of one key. A confirmed
// entry is on the replica that may be promoted, with its Idempotency-Key record (same slot), so the retry is
// answered as a replay of it.
//
// How: after a read, one confirmation per partition read (packages/redis-connections replica-wait.ts: a fence
// write in the partition's slot and WAIT behind it, one in flight per master, shared by every partition of that
// master). An entry not confirmed stays pending for this worker, unapplied: claimed again (and confirmed again)
// once its VISIBILITY_TIMEOUT_MS is over, or gone with its master if a replica was promoted without it (its
// request was never answered 202; the shop's retry stores it on the new master). With REDIS_WAIT_REPLICAS=0
// nothing is sent: reads cost what they did.
import { PartialReadError, type QueueKeys, type StreamEntry } from "@floodgate/queue";
import { confirmReplicated, type ReplicaWait, type ScriptedRedis } from "@floodgate/redis-connections";

export interface Unconfirmed {
  count: number;
  partitions: number[];
  cause: Error;
}

export class ReplicatedEntries {
  readonly #wait: ReplicaWait;
  readonly #keys: QueueKeys;
  readonly #onUnconfirmed: (unconfirmed: Unconfirmed) => void;

  constructor(wait: ReplicaWait, keys: QueueKeys, onUnconfirmed: (unconfirmed: Unconfirmed) => void) {
    this.#wait = wait;
    this.#keys = keys;
    this.#onUnconfirmed = onUnconfirmed;
  }

  /** The entries `reader` read whose master's replicas confirmed them, in their order. */
  async keep(reader: ScriptedRedis, entries: StreamEntry[]): Promise<StreamEntry[]> {
    if (this.#wait.replicas === 0 || entries.length === 0) return entries;
    const partitions = [...new Set(entries.map((entry) => entry.partition))];
    const failed = new Map<number, Error>();
    await Promise.all(
      partitions.map((partition) =>
        confirmReplicated(reader, this.#wait, this.#keys.stream(partition)).catch((error: Error) => {
          failed.set(partition, error);
        }),
      ),
    );
    if (failed.size === 0) return entries;
    const kept = entries.filter((entry) => !failed.has(entry.partition));
    this.#onUnconfirmed({
      count: entries.length - kept.length,
      partitions: [...failed.keys()].sort((a, b) => a - b),
      cause: failed.values().next().value!,
    });
    return kept;
  }

  /** The entries of `read` (a read on `reader`) that keep() keeps; a read that partly failed throws its
   * PartialReadError again, with the entries keep() keeps. */
  async confirmed(reader: ScriptedRedis, read: Promise<StreamEntry[]>): Promise<StreamEntry[]> {
    try {
      return await this.keep(reader, await read);
    } catch (error) {
      if (!(error instanceof PartialReadError)) throw error;
      throw new PartialReadError(error.message, await this.keep(reader, error.entries), error.cause);
    }
  }
}
