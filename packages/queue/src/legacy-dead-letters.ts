// The dead-letter stream had no hash tag before Redis Cluster support (`<prefix>dead-letters`); now it is
// `<prefix>{dlq}:dead-letters` (queue-keys.ts). What the previous release left in the old stream is moved
// to the new one, by each worker at start and by every `./floodgate dlq` command before it reads (so one
// left by a worker of the previous release during a rolling upgrade is found too). Remove one release later.
import type { ScriptedRedis } from "@floodgate/redis-scripts";
import { Cluster } from "ioredis";
import { entryIdTime } from "./dead-letter-store.ts";
import type { QueueKeys } from "./queue-keys.ts";

const PAGE = 500;

export const legacyDeadLetterStream = (keys: QueueKeys): string => `${keys.prefix}dead-letters`;

/** Moves every entry of the old stream to the new one; returns how many it moved. */
export async function adoptLegacyDeadLetters(redis: ScriptedRedis, keys: QueueKeys): Promise<number> {
  const legacy = legacyDeadLetterStream(keys);
  const left = await redis.xlen(legacy);
  if (left === 0) return 0;
  // One Redis and no new stream yet (the usual upgrade): one atomic rename keeps every entry and its id, so a
  // claim a dlq command of the previous release made (keyed by that id) still holds.
  if (!(redis instanceof Cluster) && (await redis.renamenx(legacy, keys.deadLetters())) === 1) return left;
  // Else entry by entry, appended to the new stream (a new id: the new stream may hold later ones already;
  // the time it was dead-lettered goes along) and only then deleted from the old one: two calls (on a cluster
  // the streams are in different slots), so a stop in between, or two movers at once, leaves a duplicate copy,
  // never none; the dlq command settles the copies of one operation together. The emptied old stream stays
  // (deleting it could race a worker of the previous release appending to it); an empty one costs one XLEN.
  let moved = 0;
  for (;;) {
    const rows = (await redis.xrange(legacy, "-", "+", "COUNT", PAGE)) as [string, string[]][];
    if (rows.length === 0) return moved;
    for (const [id, fields] of rows) {
      const named = fields.some((field, i) => i % 2 === 0 && field === "deadLetteredAt");
      await redis.xadd(
        keys.deadLetters(),
        "*",
        ...fields,
        ...(named ? [] : ["deadLetteredAt", String(entryIdTime(id))]),
      );
      await redis.xdel(legacy, id);
      moved += 1;
    }
  }
}
