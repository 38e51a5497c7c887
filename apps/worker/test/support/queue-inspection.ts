// Reads the consumer group's state straight from Redis: what is pending, for whom, and what was dead-lettered.
import { CONSUMER_GROUP, type QueueKeys } from "@floodgate/queue";
import type { ScriptedRedis } from "@floodgate/redis-connections";

export interface PendingEntry {
  partition: number;
  entryId: string;
  consumer: string;
  deliveries: number;
}

export async function pendingEntries(redis: ScriptedRedis, keys: QueueKeys, consumer?: string) {
  const out: PendingEntry[] = [];
  for (let partition = 0; partition < keys.partitions; partition++) {
    const args: (string | number)[] = [keys.stream(partition), CONSUMER_GROUP, "-", "+", 100_000];
    if (consumer !== undefined) args.push(consumer);
    const rows = (await redis.call("XPENDING", ...args)) as [string, string, number, number][];
    for (const [entryId, owner, , deliveries] of rows) {
      out.push({ partition, entryId, consumer: owner, deliveries: Number(deliveries) });
    }
  }
  return out;
}

/** XPENDING's summary count over every partition. */
export async function pendingCount(redis: ScriptedRedis, keys: QueueKeys): Promise<number> {
  let total = 0;
  for (const stream of keys.allStreams()) {
    const [count] = (await redis.xpending(stream, CONSUMER_GROUP)) as [number];
    total += Number(count);
  }
  return total;
}

/**
 * Entries not yet finished: pending (delivered, not acknowledged) plus, per partition, 1 while the group has not
 * yet been handed the stream's newest entry. Pending alone reads 0 in the moment between an append and a
 * worker's read, so a "queue drained" check needs both.
 */
export async function unfinishedCount(redis: ScriptedRedis, keys: QueueKeys): Promise<number> {
  let total = 0;
  for (const stream of keys.allStreams()) {
    const [groups, streamInfo] = (await Promise.all([
      redis.xinfo("GROUPS", stream),
      redis.xinfo("STREAM", stream),
    ])) as [unknown[][], unknown[]];
    const group = groups.map(fieldsOf).find((fields) => fields.name === CONSUMER_GROUP);
    if (group === undefined) continue;
    total += Number(group.pending);
    const newest = String(fieldsOf(streamInfo)["last-generated-id"]);
    if (compareEntryIds(String(group["last-delivered-id"]), newest) < 0) total += 1;
  }
  return total;
}

function fieldsOf(flat: unknown[]): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[String(flat[i])] = flat[i + 1];
  return fields;
}

/** Stream entry ids "<ms>-<seq>" in order. */
function compareEntryIds(a: string, b: string): number {
  const [aMs = 0n, aSeq = 0n] = a.split("-").map(BigInt);
  const [bMs = 0n, bSeq = 0n] = b.split("-").map(BigInt);
  if (aMs !== bMs) return aMs < bMs ? -1 : 1;
  return aSeq === bSeq ? 0 : aSeq < bSeq ? -1 : 1;
}

/** The operation ids (the entry's `id` field) of stream entries. */
export async function operationIdsOf(redis: ScriptedRedis, keys: QueueKeys, entries: PendingEntry[]) {
  // One XRANGE each, all at once (a pipeline may not span partitions on a cluster).
  const replies = await Promise.all(
    entries.map((e) => redis.xrange(keys.stream(e.partition), e.entryId, e.entryId)),
  );
  return replies.map((rows) => {
    const fields = rows[0]?.[1] ?? [];
    return fields[fields.indexOf("id") + 1] ?? "";
  });
}

export async function deadLetters(redis: ScriptedRedis, keys: QueueKeys) {
  const rows = (await redis.xrange(keys.deadLetters(), "-", "+")) as [string, string[]][];
  return rows.map(([, fields]) => {
    const record: Record<string, string> = {};
    for (let i = 0; i < fields.length; i += 2) record[fields[i]!] = fields[i + 1]!;
    return record;
  });
}

/** Final statuses still missing (the status hash still says pending, or is gone). */
export async function pendingStatuses(redis: ScriptedRedis, keys: QueueKeys, ids: string[]) {
  const statuses = await Promise.all(
    ids.map((id) => redis.hget(keys.status(keys.partitionForOperation(id)!, id), "status")),
  );
  return ids.filter((_, i) => statuses[i] !== "succeeded" && statuses[i] !== "failed");
}

/** Entries a consumer still holds whose operation some shard already committed: applied, not acknowledged. */
export async function appliedButUnacknowledged(
  redis: ScriptedRedis,
  keys: QueueKeys,
  consumer: string,
  present: (ids: string[]) => Promise<Set<string>>,
) {
  const ids = await operationIdsOf(redis, keys, await pendingEntries(redis, keys, consumer));
  const applied = await present(ids);
  return { pending: ids, applied: ids.filter((id) => applied.has(id)) };
}
