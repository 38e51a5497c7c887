import { createIntakeMetrics, Gauge, type IntakeMetrics } from "@floodgate/metrics";
import { readStreamInfo, workerGroup } from "@floodgate/queue";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { registerRedisMemoryGauges } from "../health/redis-memory-gauges.ts";

declare module "fastify" {
  interface FastifyInstance {
    metrics: IntakeMetrics;
  }
}

export const metricsPlugin = fp(async (app: FastifyInstance) => {
  const metrics = createIntakeMetrics();
  app.decorate("metrics", metrics);

  // Callback style: every request runs it, and a promise per request would cost more than the observation.
  app.addHook("onResponse", (request, reply, done) => {
    metrics.requestTimes.observe(
      request.method,
      request.routeOptions.url ?? "unmatched",
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });

  // Read at every collect, so the process's own metrics port (server.ts) serves them too; statsRedis is
  // decorated after this plugin, hence the function.
  registerRedisMemoryGauges(metrics.registry, () => app.statsRedis);

  // Queue depth is read from Redis at scrape time, never on the request path.
  const queueGauge = (name: string, help: string) =>
    new Gauge({ name, help, labelNames: ["partition"] as const, registers: [metrics.registry] });
  const length = queueGauge(
    "floodgate_stream_length",
    "Entries in each partition stream (trimmed once acknowledged)",
  );
  const lag = queueGauge("floodgate_stream_lag", "Entries in each partition not yet delivered to a worker");
  const pending = queueGauge(
    "floodgate_stream_pending",
    "Entries delivered to a worker but not yet acknowledged",
  );
  const gauge = (name: string, help: string) => new Gauge({ name, help, registers: [metrics.registry] });
  const deadLetters = gauge(
    "floodgate_dead_letter_entries",
    "Messages in the dead-letter stream (failed MAX_DELIVERIES times); a person empties it",
  );
  // A one-shot command has nothing to scrape: each reconcile run records its figures in Redis (0 before any).
  const reconcileDrift = gauge(
    "floodgate_reconcile_drift_found",
    "Items the last reconcile run found drifted between Redis and Postgres (repaired or not)",
  );
  const reconcileUnrepaired = gauge(
    "floodgate_reconcile_drift_unrepaired",
    "Drifted items the last reconcile run left as they are (Postgres-side: a person decides)",
  );

  const docs = { operationId: "getMetrics", summary: "Prometheus metrics", tags: ["Health"] };
  app.get("/metrics", { config: { auth: "public" }, schema: docs }, async (_request, reply) => {
    try {
      // One read per slot, all at once (one round trip, on a cluster too; see stream-info.ts for XINFO).
      const redis = app.statsRedis;
      const [streams, deadLetterCount, [drift, unrepaired]] = await Promise.all([
        Promise.all(
          app.queueKeys.allStreams().map((stream) =>
            readStreamInfo(redis, stream).then(
              (info) => ({ info }),
              (error: Error) => ({ error }),
            ),
          ),
        ),
        redis.xlen(app.queueKeys.deadLetters()),
        redis.hmget(app.queueKeys.reconcileResult(), "drift", "unrepaired"),
      ]);
      deadLetters.set(deadLetterCount);
      reconcileDrift.set(Number(drift ?? 0));
      reconcileUnrepaired.set(Number(unrepaired ?? 0));
      const unread: string[] = [];
      streams.forEach((read, partition) => {
        if ("error" in read) {
          // A partition whose master is away: no figure rather than a stale one.
          for (const gauge of [length, lag, pending]) gauge.remove({ partition });
          unread.push(`${partition}: ${read.error.message}`);
          return;
        }
        const group = read.info === null ? undefined : workerGroup(read.info);
        length.set({ partition }, read.info?.length ?? 0);
        lag.set({ partition }, Number(group?.lag ?? 0));
        pending.set({ partition }, Number(group?.pending ?? 0));
      });
      if (unread.length > 0)
        app.log.warn({ partitions: unread }, "queue gauges of some partitions unavailable");
    } catch (error) {
      app.log.warn({ err: (error as Error).message }, "queue gauges unavailable");
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
});
