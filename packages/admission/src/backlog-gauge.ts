// The workers' backlog and how fast they work it off, from the consumer group of every partition stream (XLEN
// and XINFO GROUPS of each, every partition at once: one round trip, on a cluster too). Backlog = entries not
// yet delivered (lag) + delivered but not acknowledged (pending). A stream no worker has read yet has no group:
// all of it is backlog. Where Redis cannot compute the lag, the stream's length stands in for it (an
// overestimate until the next trim).
// The workers' rate is measured only while they had work the whole time: right after a burst begins, the
// acknowledgements of the idle seconds before it say nothing of what the workers can do, and a rate of nearly
// nothing would make any backlog look endless. Until they have been busy for BUSY_EVIDENCE_MS, the drain time
// is unknown (and backpressure does not start on it).
// Entries the workers hold for a shard that cannot take them now (frozen, down, read-only; each worker
// publishes its count, stalled-entries.ts in the worker) are left out of the backlog: no worker capacity
// drains them, and counting them would turn one shard's outage into backpressure on every shard.
// A count that goes back (Redis restarted empty, its groups created anew) starts the run over: read across it,
// the workers would look like they acknowledge nothing and backpressure would stay on while they drain.
import { type QueueKeys, readStreamInfo, workerGroup } from "@floodgate/queue";
import type { ScriptedRedis } from "@floodgate/redis-connections";

export interface BacklogReading {
  backlog: number;
  /** Entries acknowledged per second while busy; null until the workers have been busy long enough. */
  workerRate: number | null;
  /** backlog / workerRate; Infinity when busy workers acknowledged nothing; null while unknown. */
  drainSeconds: number | null;
}

const WINDOW_MS = 5000;
const BUSY_EVIDENCE_MS = 2000;
/** A worker's stalled count not renewed for this long is forgotten (the worker died or its shard is back). */
const STALLED_FRESH_MS = 3000;

/** Sum of the workers' fresh stalled counts (fields `<count> <ms>`). */
export function stalledCount(fields: Record<string, string>, nowMs: number): number {
  let total = 0;
  for (const value of Object.values(fields)) {
    const [count, at] = value.split(" ").map(Number);
    if (Number.isFinite(count) && Number.isFinite(at) && nowMs - at! <= STALLED_FRESH_MS) total += count!;
  }
  return total;
}

export interface BacklogSample {
  at: number;
  /** Entries acknowledged so far, summed over the partitions. */
  acknowledged: number;
  backlog: number;
}

/**
 * Acknowledgements per second over the latest run of samples that all had a backlog (the workers had work
 * the whole time) and whose acknowledged count never went back, or null when that run is shorter than
 * BUSY_EVIDENCE_MS.
 */
export function busyRate(samples: readonly BacklogSample[], evidenceMs = BUSY_EVIDENCE_MS): number | null {
  let start = samples.length - 1;
  if (start < 0 || samples[start]!.backlog === 0) return null;
  while (
    start > 0 &&
    samples[start - 1]!.backlog > 0 &&
    samples[start - 1]!.acknowledged <= samples[start]!.acknowledged
  )
    start--;
  const first = samples[start]!;
  const last = samples.at(-1)!;
  if (last.at - first.at < evidenceMs) return null;
  return (last.acknowledged - first.acknowledged) / ((last.at - first.at) / 1000);
}

export class BacklogGauge {
  readonly #samples: BacklogSample[] = [];

  async read(redis: ScriptedRedis, queueKeys: QueueKeys, nowMs = Date.now()): Promise<BacklogReading> {
    // Every read is of one slot (a partition's stream, the stalled counts), all sent at once: one round trip,
    // never a pipeline across slots, which a cluster refuses. A partition that cannot be read (no stream yet, or
    // its master away) adds nothing, and unread stalled counts leave the backlog whole, as before: a read that
    // failed as a whole would stop the leader's room ticks too.
    const [streams, stalledFields] = await Promise.all([
      Promise.all(queueKeys.allStreams().map((stream) => readStreamInfo(redis, stream).catch(() => null))),
      redis.hgetall(queueKeys.stalledEntries()).catch(() => null),
    ]);
    let backlog = 0;
    let acknowledged = 0;
    for (const stream of streams) {
      if (stream === null) continue;
      const group = workerGroup(stream);
      if (!group) {
        backlog += stream.length;
        continue;
      }
      const pending = Number(group.pending ?? 0);
      const lag = group.lag === null || group.lag === undefined ? stream.length : Number(group.lag);
      // Undelivered and pending entries are all still in the stream (trims stop at the oldest unacknowledged
      // one), so the stream's length bounds them. Redis 7.0 can report a lag far above it: after a restart from
      // its AOF it counted thousands on streams of one entry, and backpressure refused everything for a backlog
      // that did not exist.
      backlog += Math.min(lag + pending, stream.length);
      acknowledged += Number(group["entries-read"] ?? 0) - pending;
    }
    if (stalledFields !== null) backlog = Math.max(0, backlog - stalledCount(stalledFields, nowMs));
    this.#samples.push({ at: nowMs, acknowledged, backlog });
    while (this.#samples.length > 2 && nowMs - this.#samples[0]!.at > WINDOW_MS) this.#samples.shift();
    const workerRate = busyRate(this.#samples);
    const drainSeconds =
      backlog === 0
        ? 0
        : workerRate === null
          ? null
          : workerRate > 0
            ? backlog / workerRate
            : Number.POSITIVE_INFINITY;
    return { backlog, workerRate, drainSeconds };
  }
}
