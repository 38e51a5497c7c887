// The queue's figures, read from Redis when the registry is collected: by the /metrics route and by the
// process's own metrics port (server.ts serves registry.metrics() on INTAKE_METRICS_PORT + i, which
// Prometheus scrapes), never on the request path. One read per slot, all at once on the stats connection (one
// round trip, on a cluster too; see packages/queue stream-info.ts for XINFO).
import { Gauge, type Registry } from "@floodgate/metrics";
import { type QueueKeys, readStreamInfo, type StreamInfo, workerGroup } from "@floodgate/queue";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import type { FastifyBaseLogger } from "fastify";
import { sharedRead } from "./shared-read.ts";

interface QueueFigures {
  /** Indexed by partition; an error where the partition's master did not answer. */
  streams: ({ info: StreamInfo | null } | { error: Error })[];
  deadLetters: number;
  drift: number;
  unrepaired: number;
}

export interface QueueGaugeSources {
  redis: () => ScriptedRedis;
  keys: () => QueueKeys;
  log: FastifyBaseLogger;
}

async function readQueueFigures({ redis, keys }: QueueGaugeSources): Promise<QueueFigures> {
  const stats = redis();
  const queueKeys = keys();
  const [streams, deadLetters, [drift, unrepaired]] = await Promise.all([
    Promise.all(
      queueKeys.allStreams().map((stream) =>
        readStreamInfo(stats, stream).then(
          (info) => ({ info }),
          (error: Error) => ({ error }),
        ),
      ),
    ),
    stats.xlen(queueKeys.deadLetters()),
    stats.hmget(queueKeys.reconcileResult(), "drift", "unrepaired"),
  ]);
  return { streams, deadLetters, drift: Number(drift ?? 0), unrepaired: Number(unrepaired ?? 0) };
}

export function registerQueueGauges(registry: Registry, sources: QueueGaugeSources): void {
  const read = sharedRead(async () => {
    try {
      const figures = await readQueueFigures(sources);
      const unread = figures.streams.flatMap((read, partition) =>
        "error" in read ? [`${partition}: ${read.error.message}`] : [],
      );
      if (unread.length > 0)
        sources.log.warn({ partitions: unread }, "queue gauges of some partitions unavailable");
      return figures;
    } catch (error) {
      sources.log.warn({ err: (error as Error).message }, "queue gauges unavailable");
      return undefined;
    }
  });

  const partitionGauge = (name: string, help: string, value: (info: StreamInfo | null) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["partition"] as const,
      registers: [registry],
      async collect() {
        const figures = await read();
        if (figures === undefined) return;
        figures.streams.forEach((read, partition) => {
          // A partition whose master is away: no figure rather than a stale one.
          if ("error" in read) this.remove({ partition: String(partition) });
          else this.set({ partition: String(partition) }, value(read.info));
        });
      },
    });
  partitionGauge(
    "floodgate_stream_length",
    "Entries in each partition stream (trimmed once acknowledged)",
    (info) => info?.length ?? 0,
  );
  partitionGauge("floodgate_stream_lag", "Entries in each partition not yet delivered to a worker", (info) =>
    Number((info === null ? undefined : workerGroup(info))?.lag ?? 0),
  );
  partitionGauge(
    "floodgate_stream_pending",
    "Entries delivered to a worker but not yet acknowledged",
    (info) => Number((info === null ? undefined : workerGroup(info))?.pending ?? 0),
  );

  const gauge = (name: string, help: string, value: (figures: QueueFigures) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const figures = await read();
        if (figures !== undefined) this.set(value(figures));
      },
    });
  gauge(
    "floodgate_dead_letter_entries",
    "Messages in the dead-letter stream (failed MAX_DELIVERIES times); a person empties it",
    (figures) => figures.deadLetters,
  );
  // A one-shot command has nothing to scrape: each reconcile run records its figures in Redis (0 before any).
  gauge(
    "floodgate_reconcile_drift_found",
    "Items the last reconcile run found drifted between Redis and Postgres (repaired or not)",
    (figures) => figures.drift,
  );
  gauge(
    "floodgate_reconcile_drift_unrepaired",
    "Drifted items the last reconcile run left as they are (Postgres-side: a person decides)",
    (figures) => figures.unrepaired,
  );
}
