// Consumer-group operations for workers. Entries are read in batches across all partitions in one call,
// acknowledged only after their effects are committed, and reclaimed from dead consumers after the
// visibility timeout.
import type { ScriptedRedis } from "@floodgate/redis-scripts";
import { execOrThrow } from "./pipeline-replies.ts";
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

type RawEntries = [string, string[]][];

function toEntry(partition: number, [entryId, fields]: [string, string[]], deliveries: number): StreamEntry {
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
 * New entries from every partition in one call; COUNT applies per partition. With `blockMs` the call waits
 * that long for a first entry; without it, it answers at once (BLOCK 0 would wait forever).
 */
export async function readNewEntries(
  reader: ScriptedRedis,
  keys: QueueKeys,
  consumer: string,
  countPerPartition: number,
  blockMs?: number,
): Promise<StreamEntry[]> {
  const streams = keys.allStreams();
  const ids = streams.map(() => ">");
  const reply = (
    blockMs === undefined
      ? await reader.xreadgroup(
          "GROUP",
          CONSUMER_GROUP,
          consumer,
          "COUNT",
          countPerPartition,
          "STREAMS",
          ...streams,
          ...ids,
        )
      : await reader.xreadgroup(
          "GROUP",
          CONSUMER_GROUP,
          consumer,
          "COUNT",
          countPerPartition,
          "BLOCK",
          blockMs,
          "STREAMS",
          ...streams,
          ...ids,
        )
  ) as [string, RawEntries][] | null;
  if (!reply) return [];
  const partitionOf = new Map(streams.map((stream, p) => [stream, p]));
  const entries: StreamEntry[] = [];
  for (const [stream, raw] of reply) {
    const partition = partitionOf.get(stream)!;
    for (const entry of raw) entries.push(toEntry(partition, entry, 1));
  }
  return entries;
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
  const claimed: StreamEntry[] = [];
  for (let partition = 0; partition < keys.partitions; partition++) {
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
  }
  return claimed;
}

/** Resets the idle time of entries this consumer still works on (held for a shard that is down) without
 * counting a delivery, so other workers do not claim them. */
export async function keepEntriesClaimed(
  redis: ScriptedRedis,
  keys: QueueKeys,
  consumer: string,
  entries: StreamEntry[],
): Promise<void> {
  const byPartition = groupByPartition(entries);
  const pipeline = redis.pipeline();
  for (const [partition, ids] of byPartition) {
    pipeline.xclaim(keys.stream(partition), CONSUMER_GROUP, consumer, 0, ...ids, "JUSTID");
  }
  await execOrThrow(pipeline, `keeping ${entries.length} held entries claimed`);
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
