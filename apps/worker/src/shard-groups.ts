import { decodeOperationMessage, type OperationMessage, parseOperationId } from "@floodgate/domain";
import type { StreamEntry } from "@floodgate/queue";
import type { ShardMap } from "@floodgate/shard-router";

export interface DecodedEntry {
  entry: StreamEntry;
  message: OperationMessage;
  /** A transaction holding it failed in a way that may hide a commit (held and retried by this worker). */
  attempted?: boolean;
}

/** An entry's identity in this worker: stream entry ids repeat across partitions (they are times). */
export const entryKey = (entry: StreamEntry): string => `${entry.partition} ${entry.entryId}`;

/**
 * Whether the entry's operation may already be on its shard: it was delivered before (a crash or a claim),
 * or this worker tried it before. A first delivery never tried cannot have been applied.
 */
export const mayBeApplied = (item: DecodedEntry): boolean =>
  item.entry.deliveries > 1 || item.attempted === true;

export interface SortedBatch {
  byShard: Map<number, DecodedEntry[]>;
  /** Entries of buckets being moved (paused): held until the map names their new shard. */
  paused: DecodedEntry[];
  /** Entries that do not decode: they can never succeed. */
  undecodable: { entry: StreamEntry; reason: string }[];
}

export interface RoutingMap {
  map: ShardMap;
  paused: ReadonlySet<number>;
}

/** Decodes a batch and groups it by owning shard, keeping stream order within each group. */
export function sortByShard(entries: StreamEntry[], routing: RoutingMap): SortedBatch {
  const undecodable: SortedBatch["undecodable"] = [];
  const decoded: DecodedEntry[] = [];
  for (const entry of entries) {
    let message: OperationMessage;
    try {
      message = decodeOperationMessage(entry.payload, entry.operationId);
      if (message.id !== entry.operationId) throw new Error("entry id and message id differ");
    } catch (error) {
      undecodable.push({ entry, reason: (error as Error).message });
      continue;
    }
    decoded.push({ entry, message });
  }
  return { ...routeDecoded(decoded, routing), undecodable };
}

/** Groups decoded entries by the shard the map gives their bucket now; a paused bucket's go aside. */
export function routeDecoded(
  items: DecodedEntry[],
  { map, paused }: RoutingMap,
): Omit<SortedBatch, "undecodable"> {
  const byShard = new Map<number, DecodedEntry[]>();
  const held: DecodedEntry[] = [];
  for (const item of items) {
    const bucket = bucketOf(item.message);
    if (paused.has(bucket)) {
      held.push(item);
      continue;
    }
    const shard = map.shardForBucket(bucket);
    const group = byShard.get(shard);
    if (group) group.push(item);
    else byShard.set(shard, [item]);
  }
  return { byShard, paused: held };
}

/**
 * The operation's bucket, from its id: the user's for every kind but a refund, whose id carries its payment's
 * (the decoder checked the id, so it parses).
 */
export const bucketOf = (message: OperationMessage): number => parseOperationId(message.id)!.bucket;
