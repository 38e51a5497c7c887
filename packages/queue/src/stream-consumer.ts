// Consumer-group operations for workers. Entries are read in batches from every partition
// (read-new-entries.ts), acknowledged only after their effects are committed, and reclaimed from dead consumers
// after the visibility timeout. Every command here names one partition's stream, so each runs on a Redis
// Cluster too (a command, or a pipeline, may not span slots there); partitions go concurrently instead.
import { type ScriptedRedis, trimAcknowledged } from "@floodgate/redis-scripts";
import { CONSUMER_GROUP, type QueueKeys } from "./queue-keys.ts";

export interface StreamEntry {
  partition: number;
  /** Redis stream entry id, e.g. 1700000000000-0. */
  entryId: string;
  operationId: string;
  /** The encoded OperationMessage, undecoded (a poison message must still be routable to the DLQ). */
  payload: string;
  /** 1 on first delivery. */
  deliveries: number;
}

export type RawEntries = [string, string[]][];

export function toEntry(
  partition: number,
  [entryId, fields]: [string, string[]],
  deliveries: number,
): StreamEntry {
  let operationId = "";
  let payload = "";
  for (let i = 0; i < fields.length; i += 2) {
    if (fields[i] === "id") operationId = fields[i + 1] ?? "";
    else if (fields[i] === "m") payload = fields[i + 1] ?? "";
  }
  return { partition, entryId, operationId, payload, deliveries };
}

/**
 * Creates the group on every partition stream that lacks it, from id 0: a stream without our group is new
 * (Redis restarted empty, or it was never read), so all of it is for the workers; entries applied before
 * (a group deleted by hand) are recognised by their shard. `$` would skip what was accepted since the restart.
 */
export async function ensureConsumerGroups(redis: ScriptedRedis, keys: QueueKeys): Promise<void> {
  await Promise.all(
    keys.allStreams().map((stream) =>
      redis.xgroup("CREATE", stream, CONSUMER_GROUP, "0", "MKSTREAM").catch((error: Error) => {
        if (replyCode(error) !== "BUSYGROUP") throw error; // another worker created it first
      }),
    ),
  );
}

/** The error code of a Redis error reply (by protocol, its first word), or undefined for any other failure. */
function replyCode(error: unknown): string | undefined {
  if ((error as Error | null)?.name !== "ReplyError") return undefined;
  return String((error as Error).message).split(" ", 1)[0];
}

/** Redis answered NOGROUP: a stream has no consumer group (or no longer exists). */
export function isMissingGroup(error: unknown): boolean {
  return replyCode(error) === "NOGROUP";
}

/**
 * Some partitions answered and some did not (on a cluster, one master may be down or failing over): what the
 * others gave is already pending for this consumer, so it is handed over with the first failure rather than
 * dropped (dropped, it would wait out the visibility timeout and count one more delivery).
 */
export class PartialReadError extends Error {
  readonly entries: StreamEntry[];

  constructor(message: string, entries: StreamEntry[], cause: unknown) {
    super(message, { cause });
    this.name = "PartialReadError";
    this.entries = entries;
  }
}

/**
 * Entries of every partition from one call per partition, all at once, in partition order. Throws the first
 * failure when every partition failed, a PartialReadError carrying the rest when only some did.
 */
export async function entriesOfEveryPartition(
  keys: QueueKeys,
  what: string,
  read: (partition: number) => Promise<StreamEntry[]>,
): Promise<StreamEntry[]> {
  const settled = await Promise.allSettled(
    Array.from({ length: keys.partitions }, (_, partition) => read(partition)),
  );
  const entries: StreamEntry[] = [];
  const failures: unknown[] = [];
  for (const result of settled) {
    if (result.status === "fulfilled") entries.push(...result.value);
    else failures.push(result.reason);
  }
  if (failures.length === 0) return entries;
  if (failures.length === settled.length) throw failures[0];
  const first = (failures[0] as Error | undefined)?.message;
  const message = `${what}: ${failures.length} of ${settled.length} partitions failed (first: ${first})`;
  throw new PartialReadError(message, entries, failures[0]);
}

/**
 * Claims entries idle longer than the visibility timeout (their consumer is presumed dead) and reports how
 * often each was delivered, so the caller can dead-letter the ones that keep failing. About
 * `countPerPartition` per partition (a call may claim up to twice that).
 */
export async function claimStaleEntries(
  redis: ScriptedRedis,
  keys: QueueKeys,
  consumer: string,
  minIdleMs: number,
  countPerPartition: number,
): Promise<StreamEntry[]> {
  return entriesOfEveryPartition(keys, "claiming stale entries", async (partition) => {
    const claimed: StreamEntry[] = [];
    const stream = keys.stream(partition);
    // One XAUTOCLAIM looks at no more than COUNT x 10 pending entries; follow its cursor, or stale entries
    // behind a live worker's many fresh ones (held for a shard that is down) would never be reached.
    let cursor = "0-0";
    let claimedHere = 0;
    do {
      const [next, raw] = (await redis.xautoclaim(
        stream,
        CONSUMER_GROUP,
        consumer,
        minIdleMs,
        cursor,
        "COUNT",
        countPerPartition,
      )) as [string, RawEntries, string[]?];
      cursor = next;
      const live = raw.filter(([, fields]) => fields !== null);
      if (live.length === 0) continue;
      // XAUTOCLAIM does not say how often an entry was delivered; XPENDING for our own range does. The range
      // may also hold entries this consumer already had (at most the COUNT x 10 the claim looked at).
      const pending = (await redis.xpending(
        stream,
        CONSUMER_GROUP,
        live[0]![0],
        live.at(-1)![0],
        countPerPartition * 10,
        consumer,
      )) as [string, string, number, number][];
      const deliveries = new Map(pending.map(([id, , , count]) => [id, count]));
      for (const entry of live) claimed.push(toEntry(partition, entry, deliveries.get(entry[0]) ?? 1));
      claimedHere += live.length;
    } while (cursor !== "0-0" && claimedHere < countPerPartition);
    return claimed;
  });
}

/** Resets the idle time of entries this consumer still works on (held for a shard that is down) without
 * counting a delivery, so other workers do not claim them. */
export async function keepEntriesClaimed(
  redis: ScriptedRedis,
  keys: QueueKeys,
  consumer: string,
  entries: StreamEntry[],
): Promise<void> {
  const claims = [...groupByPartition(entries)].map(([partition, ids]) =>
    redis.xclaim(keys.stream(partition), CONSUMER_GROUP, consumer, 0, ...ids, "JUSTID"),
  );
  await Promise.all(claims);
}

export function groupByPartition(entries: StreamEntry[]): Map<number, string[]> {
  const byPartition = new Map<number, string[]>();
  for (const entry of entries) {
    const ids = byPartition.get(entry.partition);
    if (ids) ids.push(entry.entryId);
    else byPartition.set(entry.partition, [entry.entryId]);
  }
  return byPartition;
}

/**
 * Removes this consumer from the group in every partition where it holds nothing, so restarts do not pile up
 * dead consumer names. A consumer that still holds entries stays: deleting it would drop them from the
 * pending list, and no one would ever redeliver them.
 */
export async function leaveConsumerGroup(
  redis: ScriptedRedis,
  keys: QueueKeys,
  consumer: string,
): Promise<number> {
  let left = 0;
  for (const stream of keys.allStreams()) {
    const held = (await redis.xpending(stream, CONSUMER_GROUP, "-", "+", 1, consumer)) as unknown[];
    if (held.length > 0) continue;
    left += Number(await redis.xgroup("DELCONSUMER", stream, CONSUMER_GROUP, consumer)) >= 0 ? 1 : 0;
  }
  return left;
}

/**
 * Drops the acknowledged entries of every partition (trim-acknowledged-1.lua, one call per stream, all at once);
 * returns how many. A stream that failed is only trimmed at the next call.
 */
export async function trimAcknowledgedEntries(redis: ScriptedRedis, keys: QueueKeys): Promise<number> {
  const trimmed = await Promise.all(
    keys
      .allStreams()
      .map((stream) => trimAcknowledged.run(redis, { streamKey: stream, group: CONSUMER_GROUP })),
  );
  return trimmed.reduce((sum, { removed }) => sum + removed, 0);
}
