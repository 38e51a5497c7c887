// Reading the dead-letter stream (written by the worker's dead-letter.ts) for `./floodgate dlq`. Each entry
// holds the operation `id`, the `partition` and stream `entryId` it failed in, its `deliveries`, the `reason`,
// `firstFailedAt` and `m`, the encoded message as it was appended (kept undecoded: a message that never decoded
// is there too). The worker may have written one operation's entry twice (dead-letter.ts): readers list both,
// and the dlq command settles them together.
import type { ScriptedRedis } from "@floodgate/redis-scripts";
import type { QueueKeys } from "./queue-keys.ts";

export interface DeadLetter {
  /** The entry's id in the dead-letter stream: its time is when the message was dead-lettered. */
  deadLetterId: string;
  operationId: string;
  partition: number;
  /** The entry id it had on its partition stream. */
  entryId: string;
  deliveries: number;
  reason: string;
  /**
   * When it was dead-lettered (epoch ms): its id's time, or the time an entry moved from the untagged stream
   * had there (legacy-dead-letters.ts).
   */
  deadLetteredAt: number;
  /** When its message first failed (epoch ms); null for an entry written before this was recorded. */
  firstFailedAt: number | null;
  message: string;
}

type RawEntry = [string, string[]];

function toDeadLetter([deadLetterId, fields]: RawEntry): DeadLetter {
  const field: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) field[fields[i]!] = fields[i + 1]!;
  return {
    deadLetterId,
    operationId: field.id ?? "",
    partition: Number(field.partition ?? -1),
    entryId: field.entryId ?? "",
    deliveries: Number(field.deliveries ?? 0),
    reason: field.reason ?? "",
    deadLetteredAt:
      field.deadLetteredAt === undefined ? entryIdTime(deadLetterId) : Number(field.deadLetteredAt),
    firstFailedAt: field.firstFailedAt === undefined ? null : Number(field.firstFailedAt),
    message: field.m ?? "",
  };
}

/** The time a stream entry id carries (epoch ms). */
export const entryIdTime = (entryId: string): number => Number(entryId.split("-")[0]);

/**
 * Every dead letter up to `until` (a dead-letter entry id; default: the end), oldest first, read in pages (the
 * stream is small, but an incident can fill it).
 */
export async function* readDeadLetters(
  redis: ScriptedRedis,
  keys: QueueKeys,
  until = "+",
  pageSize = 500,
): AsyncGenerator<DeadLetter> {
  let start = "-";
  for (;;) {
    const rows = (await redis.xrange(keys.deadLetters(), start, until, "COUNT", pageSize)) as RawEntry[];
    for (const row of rows) yield toDeadLetter(row);
    if (rows.length < pageSize) return;
    start = `(${rows[rows.length - 1]![0]}`;
  }
}

/**
 * The dead letters of one operation (the worker may dead-letter an entry twice if its acknowledgement failed),
 * or the one entry whose dead-letter id this is.
 */
export async function findDeadLetters(
  redis: ScriptedRedis,
  keys: QueueKeys,
  id: string,
): Promise<DeadLetter[]> {
  if (/^\d+-\d+$/.test(id)) {
    const rows = (await redis.xrange(keys.deadLetters(), id, id)) as RawEntry[];
    return rows.map(toDeadLetter);
  }
  const found: DeadLetter[] = [];
  for await (const letter of readDeadLetters(redis, keys)) {
    if (letter.operationId === id) found.push(letter);
  }
  return found;
}

/** How many dead letters there are now, and the id of the newest (null when there are none). */
export async function deadLettersNow(
  redis: ScriptedRedis,
  keys: QueueKeys,
): Promise<{ count: number; newest: string | null }> {
  const [count, newest] = await Promise.all([
    redis.xlen(keys.deadLetters()),
    redis.xrevrange(keys.deadLetters(), "+", "-", "COUNT", 1) as Promise<RawEntry[]>,
  ]);
  return { count, newest: newest[0]?.[0] ?? null };
}
