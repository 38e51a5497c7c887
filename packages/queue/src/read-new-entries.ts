// How a worker takes new entries of every partition (COUNT applies per partition; each partition's entries
// come in stream order, which is each user's acceptance order).
//
// One Redis: one XREADGROUP names every partition's stream and BLOCKs on the reader's own connection, so the
// first entry accepted wakes an idle worker at once (and an empty poll costs the client a third of what 16
// single-partition reads cost, measured).
// A cluster: a command may name one slot only, and a blocked command would hold up its connection (the cluster
// client has one per node, shared by every caller). Blocking per partition would take a connection per
// partition per worker, to be rebuilt whenever a slot moves. So each partition gets its own XREADGROUP without
// BLOCK, all sent together (one round trip per node), and when every partition is empty a short pause stands
// in for the BLOCK. The cost: an entry that reaches an idle worker waits up to CLUSTER_IDLE_WAIT_MS, small next
// to the linger a small read gets anyway (apps/worker/src/batch-linger.ts).
import type { ScriptedRedis } from "@floodgate/redis-scripts";
import type { PartitionBackoff } from "./partition-backoff.ts";
import { CONSUMER_GROUP, type QueueKeys } from "./queue-keys.ts";
import { entriesOfEveryPartition, type RawEntries, type StreamEntry, toEntry } from "./stream-consumer.ts";

/** The pause after an empty round of reads on a cluster (at most the caller's blockMs). */
export const CLUSTER_IDLE_WAIT_MS = 20;

/**
 * New entries of every partition. With `blockMs`, a read that finds none waits up to that long: on one Redis
 * until the first entry arrives, on a cluster CLUSTER_IDLE_WAIT_MS (or blockMs if shorter) and returns empty.
 * Without it, it answers at once (BLOCK 0 would wait forever). On a cluster, a read where only some partitions
 * failed throws a PartialReadError that carries the entries of the others (stream-consumer.ts); with a
 * `backoff`, a partition whose read failed is left out of the reads that follow for its backoff time
 * (partition-backoff.ts), so the others are read at their own pace meanwhile.
 */
export async function readNewEntries(
  reader: ScriptedRedis,
  keys: QueueKeys,
  consumer: string,
  countPerPartition: number,
  blockMs?: number,
  backoff?: PartitionBackoff,
): Promise<StreamEntry[]> {
  if (!reader.isCluster) return readInOneCall(reader, keys, consumer, countPerPartition, blockMs);
  const now = Date.now();
  const entries = await entriesOfEveryPartition(keys, "reading new entries", async (partition) => {
    if (backoff?.skips(partition, now)) return [];
    const reply = (await reader
      .xreadgroup(
        "GROUP",
        CONSUMER_GROUP,
        consumer,
        "COUNT",
        countPerPartition,
        "STREAMS",
        keys.stream(partition),
        ">",
      )
      .then(
        (answer) => {
          backoff?.answered(partition);
          return answer;
        },
        (error: unknown) => {
          backoff?.failed(partition, Date.now());
          throw error;
        },
      )) as [string, RawEntries][] | null;
    return (reply?.[0]?.[1] ?? []).map((entry) => toEntry(partition, entry, 1));
  });
  if (entries.length === 0 && blockMs !== undefined) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(blockMs, CLUSTER_IDLE_WAIT_MS)));
  }
  return entries;
}

async function readInOneCall(
  reader: ScriptedRedis,
  keys: QueueKeys,
  consumer: string,
  countPerPartition: number,
  blockMs: number | undefined,
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
