// Is the queue drained? Redis runs ahead of Postgres by what is still queued, so Redis and Postgres can be
// compared exactly only when every partition's consumer group has delivered every entry and holds none
// unacknowledged. Two readings with the same fingerprint also prove nothing moved in between: every change
// to the counters on the hot path appends to a stream (a new last id) or happens while an entry is pending.
import { CONSUMER_GROUP, type QueueKeys } from "@floodgate/queue";
import type { Cluster, Redis } from "ioredis";

export interface QueueActivity {
  drained: boolean;
  /** Delivered to a worker and not yet acknowledged. */
  pending: number;
  /** Appended and not yet delivered to any worker. */
  undelivered: number;
  /** Per partition: last appended id, last delivered id and pending count; equal strings, nothing moved. */
  fingerprint: string;
}

/** One round trip: XINFO STREAM and XINFO GROUPS of every partition. */
export async function readQueueActivity(redis: Redis | Cluster, keys: QueueKeys): Promise<QueueActivity> {
  const streams = keys.allStreams();
  const pipeline = redis.pipeline();
  for (const stream of streams) {
    pipeline.xinfo("STREAM", stream);
    pipeline.xinfo("GROUPS", stream);
  }
  const replies = (await pipeline.exec()) ?? [];
  let pending = 0;
  let undelivered = 0;
  const marks: string[] = [];
  for (let i = 0; i < streams.length; i++) {
    const [streamError, streamInfo] = replies[2 * i] ?? [null, null];
    if (streamError) {
      if (/no such key/i.test(streamError.message)) {
        marks.push("-"); // never written (a fresh Redis, or no worker started yet): nothing queued
        continue;
      }
      throw streamError;
    }
    const [groupsError, groupsInfo] = replies[2 * i + 1]!;
    if (groupsError) throw groupsError;
    const stream = fields(streamInfo as unknown[]);
    const group = (groupsInfo as unknown[][]).map(fields).find((g) => g.name === CONSUMER_GROUP);
    const lastId = String(stream["last-generated-id"]);
    if (!group) {
      // Entries appended before any worker created the group: all of them wait.
      undelivered += Number(stream.length);
      marks.push(`${lastId}/none`);
      continue;
    }
    const delivered = String(group["last-delivered-id"]);
    pending += Number(group.pending);
    undelivered += await undeliveredCount(redis, streams[i]!, delivered, lastId, group.lag);
    marks.push(`${lastId}/${delivered}/${group.pending}`);
  }
  return { drained: pending === 0 && undelivered === 0, pending, undelivered, fingerprint: marks.join(" ") };
}

/** Same entries appended, delivered and pending in every partition. */
export const sameActivity = (a: QueueActivity, b: QueueActivity) => a.fingerprint === b.fingerprint;

export const inFlight = (activity: QueueActivity) => activity.pending + activity.undelivered;

async function undeliveredCount(
  redis: Redis | Cluster,
  stream: string,
  delivered: string,
  lastId: string,
  lag: unknown,
): Promise<number> {
  if (delivered === lastId) return 0;
  if (typeof lag === "number") return lag;
  // Redis answers no lag when it cannot tell (entries deleted from the middle): count what follows.
  const after = await redis.xrange(stream, `(${delivered}`, "+", "COUNT", 10_000);
  return Math.max(1, after.length);
}

function fields(flat: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[String(flat[i])] = flat[i + 1];
  return out;
}
