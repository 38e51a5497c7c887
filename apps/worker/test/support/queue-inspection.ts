// Reads the consumer group's state straight from Redis: what is pending, for whom, and what was dead-lettered.
import { CONSUMER_GROUP, type QueueKeys, type ScriptedRedis } from "@floodgate/queue";

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
