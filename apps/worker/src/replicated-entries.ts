// REDIS_WAIT_REPLICAS on the worker's side: an entry is applied only once a replica of the master it was read
// from has it. The intake answers 503 (not 202) for a request its master stored but no replica confirmed, and
// the shop retries it with the same Idempotency-Key. If that master is cut from its replicas and one of them is
// promoted, the retry reaches a master that never saw the first request and stores it again under a new id: a
// worker that had applied the first one from the old master would make two payments of one key. A confirmed
// entry is on the replica that may be promoted, with its Idempotency-Key record (same slot), so the retry is
// answered as a replay of it.
//
// How: each read's entries of a partition are one group, confirmed by its master (packages/redis-connections
// replica-wait.ts: a fence write in the partition's slot and WAIT behind it, one in flight per master, shared
// by every partition of that master), the master being the one the partition had both before the read was sent
// and once it answered (else the entries are dropped: left pending, claimed later). A group is handed over once
// confirmed, after the groups read before it
// from its partition (stream order). The read loop does not wait out a WAIT that times out: confirmations run
// on their own, each read hands over what got confirmed by then (after at most CONFIRM_WAIT_MS for those just
// started), so partitions on healthy masters keep their pace. A group not confirmed is held, unapplied (pending
// for this worker in Redis), and confirmed again while its partition has the master it was read from; its
// partition's master changed (a failover: the new one may not have it), or held for half VISIBILITY_TIMEOUT_MS,
// it is dropped: what the master still has is claimed after the visibility timeout and confirmed then. With
// REDIS_WAIT_REPLICAS=0 nothing is sent: reads cost what they did.
import { PartialReadError, type QueueKeys, type StreamEntry } from "@floodgate/queue";
import {
  confirmReplicated,
  masterOf,
  type ReplicaWait,
  type ScriptedRedis,
} from "@floodgate/redis-connections";

/** How long a read waits for the confirmations it started (a healthy master answers in a round trip). */
const CONFIRM_WAIT_MS = 50;

export interface Unconfirmed {
  /** Entries whose confirmation just failed for the first time. */
  newlyHeld: number;
  /** Every entry read and not handed over yet. */
  held: number;
  partitions: number[];
  cause: Error;
}

interface Group {
  /** The master they were read from ("host:port", or "single"). */
  master: string;
  entries: StreamEntry[];
  readAt: number;
  state: "confirming" | "confirmed" | "unconfirmed";
  failures: number;
}

export class ReplicatedEntries {
  readonly #wait: ReplicaWait;
  readonly #keys: QueueKeys;
  readonly #holdMs: number;
  readonly #onUnconfirmed: (unconfirmed: Unconfirmed) => void;
  /** Per partition, the groups read and not handed over, in stream order. */
  readonly #groups = new Map<number, Group[]>();
  /** Since the last report: entries whose confirmation failed a first time, the partitions that failed, why. */
  #newlyHeld = 0;
  readonly #failedPartitions = new Set<number>();
  #cause: Error | null = null;

  constructor(
    wait: ReplicaWait,
    keys: QueueKeys,
    visibilityTimeoutMs: number,
    onUnconfirmed: (unconfirmed: Unconfirmed) => void,
  ) {
    this.#wait = wait;
    this.#keys = keys;
    this.#holdMs = visibilityTimeoutMs / 2;
    this.#onUnconfirmed = onUnconfirmed;
  }

  /** Entries read and not handed over yet. */
  get heldCount(): number {
    let count = 0;
    for (const groups of this.#groups.values()) for (const group of groups) count += group.entries.length;
    return count;
  }

  /** Each partition's master as `reader` sees it now: taken before a read, for keep() to check after it. */
  masters(reader: ScriptedRedis): string[] {
    if (this.#wait.replicas === 0) return [];
    return Array.from({ length: this.#keys.partitions }, (_, p) => masterOf(reader, this.#keys.stream(p)));
  }

  /**
   * Of the entries `reader` read and those of earlier reads, the ones confirmed by now, per partition in stream
   * order. `before`: masters(reader) taken before the read; a partition whose master changed during it (a
   * failover seen, a MOVED followed) has its entries dropped: which master they came from is unknown.
   */
  async keep(
    reader: ScriptedRedis,
    entries: StreamEntry[],
    before: readonly string[],
  ): Promise<StreamEntry[]> {
    if (this.#wait.replicas === 0) return entries;
    const now = Date.now();
    const started: Promise<void>[] = [];
    for (const [partition, read] of groupByPartition(entries)) {
      const master = masterOf(reader, this.#keys.stream(partition));
      if (before[partition] !== master) {
        this.#newlyHeld += read.length;
        this.#failedPartitions.add(partition);
        this.#cause = new Error(
          `the partition's master changed during the read (${before[partition]} -> ${master})`,
        );
        continue;
      }
      const group: Group = {
        master,
        entries: read,
        readAt: now,
        state: "confirming",
        failures: 0,
      };
      this.#groups.set(partition, [...(this.#groups.get(partition) ?? []), group]);
      started.push(this.#confirm(reader, partition, group));
    }
    for (const [partition, groups] of this.#groups) {
      for (const group of groups) {
        if (group.state !== "unconfirmed") continue;
        if (masterOf(reader, this.#keys.stream(partition)) !== group.master) continue; // dropped below
        started.push(this.#confirm(reader, partition, group));
      }
    }
    if (started.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(started),
        new Promise((resolve) => {
          timer = setTimeout(resolve, CONFIRM_WAIT_MS);
        }),
      ]);
      clearTimeout(timer);
    }
    return this.#handOver(reader, Date.now());
  }

  /** The entries of `read` (a read on `reader`, started here once the masters are taken) that keep() hands
   * over; a read that partly failed throws its PartialReadError again, with those. */
  async confirmed(reader: ScriptedRedis, read: () => Promise<StreamEntry[]>): Promise<StreamEntry[]> {
    const before = this.masters(reader);
    try {
      return await this.keep(reader, await read(), before);
    } catch (error) {
      if (!(error instanceof PartialReadError)) throw error;
      throw new PartialReadError(error.message, await this.keep(reader, error.entries, before), error.cause);
    }
  }

  #confirm(reader: ScriptedRedis, partition: number, group: Group): Promise<void> {
    group.state = "confirming";
    return confirmReplicated(reader, this.#wait, this.#keys.stream(partition)).then(
      () => {
        group.state = "confirmed";
      },
      (error: Error) => {
        group.state = "unconfirmed";
        group.failures++;
        if (group.failures === 1) this.#newlyHeld += group.entries.length;
        this.#failedPartitions.add(partition);
        this.#cause = error;
      },
    );
  }

  /** Confirmed groups at the head of each partition's list; held ones past their time, or read from a master
   * the partition no longer has, dropped. Reports the confirmations that failed since the last report. */
  #handOver(reader: ScriptedRedis, now: number): StreamEntry[] {
    const out: StreamEntry[] = [];
    for (const [partition, groups] of this.#groups) {
      const master = masterOf(reader, this.#keys.stream(partition));
      const left = groups.filter(
        (group) =>
          group.state !== "unconfirmed" || (group.master === master && now - group.readAt <= this.#holdMs),
      );
      while (left[0]?.state === "confirmed") out.push(...left.shift()!.entries);
      if (left.length === 0) this.#groups.delete(partition);
      else this.#groups.set(partition, left);
    }
    if (this.#cause !== null) {
      this.#onUnconfirmed({
        newlyHeld: this.#newlyHeld,
        held: this.heldCount,
        partitions: [...this.#failedPartitions].sort((a, b) => a - b),
        cause: this.#cause,
      });
      this.#newlyHeld = 0;
      this.#failedPartitions.clear();
      this.#cause = null;
    }
    return out;
  }
}

function groupByPartition(entries: readonly StreamEntry[]): Map<number, StreamEntry[]> {
  const groups = new Map<number, StreamEntry[]>();
  for (const entry of entries) {
    const group = groups.get(entry.partition);
    if (group === undefined) groups.set(entry.partition, [entry]);
    else group.push(entry);
  }
  return groups;
}
