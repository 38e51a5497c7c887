// Consumer lag as the age of the oldest entry the workers have not acknowledged yet, over every partition
// stream: an entry id is the ms time Redis added it, so "Redis' clock now - that id's time" is how long the
// oldest payment still waiting has waited. Not yet acknowledged is either pending (delivered, in the group's
// pending list: XPENDING's smallest id) or not yet delivered (after the group's last-delivered-id); a pending
// entry is always older than an undelivered one, so the second is read only when nothing is pending.
import { CONSUMER_GROUP, readStreamInfo } from "@floodgate/queue";
import type { RedisClient } from "@floodgate/test-fixtures";

export interface ConsumerLag {
  /** Seconds since the oldest unacknowledged entry was added; 0 when every entry is acknowledged. */
  lagS: number;
  /** The stream that entry is in; null when none waits. */
  stream: string | null;
}

const idTime = (id: string): number => Number(id.split("-")[0]);

/** The id time (epoch ms) of the stream's oldest entry the group has not acknowledged; null when none. */
export async function oldestUnacknowledgedMs(
  redis: RedisClient,
  stream: string,
  group: string = CONSUMER_GROUP,
): Promise<number | null> {
  const info = await readStreamInfo(redis, stream);
  if (info === null || info.length === 0) return null;
  const record = info.groups.find((candidate) => candidate.name === group);
  // No group yet: no worker has read the stream, every entry waits.
  const after = record === undefined ? "-" : `(${String(record["last-delivered-id"])}`;
  if (record !== undefined && Number(record.pending) > 0) {
    const [, smallest] = (await redis.xpending(stream, group)) as [number, string | null];
    if (smallest) return idTime(smallest);
  }
  const [first] = await redis.xrange(stream, after, "+", "COUNT", 1);
  return first === undefined ? null : idTime(first[0]);
}

/** The largest lag over `streams`, against Redis' own clock (the ids come from it). */
export async function readConsumerLag(
  redis: RedisClient,
  streams: readonly string[],
  group: string = CONSUMER_GROUP,
): Promise<ConsumerLag> {
  const [[seconds = 0, micros = 0], oldest] = await Promise.all([
    redis.time(),
    Promise.all(streams.map((stream) => oldestUnacknowledgedMs(redis, stream, group))),
  ]);
  const nowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  return lagFrom(nowMs, streams, oldest);
}

/** Pure: the largest age among the streams' oldest waiting entries. */
export function lagFrom(
  nowMs: number,
  streams: readonly string[],
  oldest: readonly (number | null)[],
): ConsumerLag {
  let lag: ConsumerLag = { lagS: 0, stream: null };
  oldest.forEach((time, i) => {
    if (time === null) return;
    const lagS = Math.max(0, nowMs - time) / 1000;
    if (lag.stream === null || lagS > lag.lagS) lag = { lagS, stream: streams[i]! };
  });
  return lag;
}
