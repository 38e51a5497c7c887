// The workers' backlog and how fast they work it off, from the consumer group of every partition stream (one
// pipeline of XINFO GROUPS and XLEN). Backlog = entries not yet delivered (lag) + delivered but not
// acknowledged (pending); the workers' rate = acknowledged entries per second over the last few samples. A
// stream no worker has read yet has no group: all of it is backlog. Where Redis cannot compute the lag, the
// stream's length stands in for it (an overestimate until the next trim).
import { CONSUMER_GROUP, type QueueKeys, type ScriptedRedis } from "@floodgate/queue";

export interface BacklogReading {
  backlog: number;
  /** Entries acknowledged per second, measured; 0 when nothing was acknowledged lately. */
  workerRate: number;
  /** backlog / workerRate; Infinity for a backlog that nothing works off. */
  drainSeconds: number;
}

const WINDOW_MS = 5000;

export class BacklogGauge {
  readonly #samples: { at: number; acknowledged: number }[] = [];

  async read(redis: ScriptedRedis, queueKeys: QueueKeys, nowMs = Date.now()): Promise<BacklogReading> {
    const pipeline = redis.pipeline();
    for (const stream of queueKeys.allStreams()) pipeline.xinfo("GROUPS", stream).xlen(stream);
    const results = (await pipeline.exec()) ?? [];
    let backlog = 0;
    let acknowledged = 0;
    for (let i = 0; i < results.length; i += 2) {
      const [error, groups] = results[i]!;
      const length = Number(results[i + 1]?.[1] ?? 0);
      if (error) continue; // a partition whose stream does not exist yet: nothing queued there
      const group = (groups as unknown[][])
        .map((fields) => {
          const record: Record<string, unknown> = {};
          for (let f = 0; f < fields.length; f += 2) record[String(fields[f])] = fields[f + 1];
          return record;
        })
        .find((record) => record.name === CONSUMER_GROUP);
      if (!group) {
        backlog += length;
        continue;
      }
      const pending = Number(group.pending ?? 0);
      const lag = group.lag === null || group.lag === undefined ? length : Number(group.lag);
      backlog += lag + pending;
      acknowledged += Number(group["entries-read"] ?? 0) - pending;
    }
    this.#samples.push({ at: nowMs, acknowledged });
    while (this.#samples.length > 2 && nowMs - this.#samples[0]!.at > WINDOW_MS) this.#samples.shift();
    const first = this.#samples[0]!;
    const elapsed = (nowMs - first.at) / 1000;
    const workerRate = elapsed > 0 ? Math.max(0, acknowledged - first.acknowledged) / elapsed : 0;
    const drainSeconds = backlog === 0 ? 0 : workerRate > 0 ? backlog / workerRate : Number.POSITIVE_INFINITY;
    return { backlog, workerRate, drainSeconds };
  }
}
