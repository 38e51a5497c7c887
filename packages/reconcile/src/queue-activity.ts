// Is the queue drained? Redis runs ahead of Postgres by what is still queued, so Redis and Postgres can be
// compared exactly only when every partition's consumer group has delivered every entry and holds none
// unacknowledged. Two readings with the same fingerprint also prove nothing moved in between: every change
// to the counters on the hot path appends to a stream (a new last id) or happens while an entry is pending.
import { type QueueKeys, readStreamInfo, workerGroup } from "@floodgate/queue";
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

/**
 * One round trip: XINFO STREAM and XINFO GROUPS of every partition, each partition's on its own (one slot), all
 * sent at once. A partition whose stream was never written (a fresh Redis, no worker started yet) holds nothing.
 */
export async function readQueueActivity(redis: Redis | Cluster, keys: QueueKeys): Promise<QueueActivity> {
  const streams = keys.allStreams();
  const infos = await Promise.all(
    streams.map((stream) => readStreamInfo(redis, stream, { withStream: true })),
  );
  let pending = 0;
  let undelivered = 0;
  const marks: string[] = [];
  for (const [i, info] of infos.entries()) {
    if (info === null) {
      marks.push("-");
      continue;
    }
    const lastId = String(info.stream!["last-generated-id"]);
    const group = workerGroup(info);
    if (!group) {
      // Entries appended before any worker created the group: all of them wait.
      undelivered += info.length;
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
