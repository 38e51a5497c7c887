// The workers' backlog and how fast they work it off, from the consumer group of every partition stream (one
// pipeline of XINFO GROUPS). Backlog = entries not yet delivered (lag) + delivered but not acknowledged
// (pending); the workers' rate = acknowledged entries per second over the last few samples.
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
    for (const stream of queueKeys.allStreams()) pipeline.xinfo("GROUPS", stream);
    const results = (await pipeline.exec()) ?? [];
    let backlog = 0;
    let acknowledged = 0;
    for (const [error, groups] of results) {
      if (error) continue; // a partition whose stream does not exist yet
      for (const fields of groups as unknown[][]) {
        const group: Record<string, unknown> = {};
        for (let i = 0; i < fields.length; i += 2) group[String(fields[i])] = fields[i + 1];
        if (group.name !== CONSUMER_GROUP) continue;
        const pending = Number(group.pending ?? 0);
        backlog += Number(group.lag ?? 0) + pending;
        acknowledged += Number(group["entries-read"] ?? 0) - pending;
      }
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
