import { createIntakeMetrics, Gauge, type IntakeMetrics } from "@floodgate/metrics";
import { CONSUMER_GROUP } from "@floodgate/queue";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";

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
    metrics.requestSeconds.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? "unmatched",
        status: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
    done();
  });

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
      const pipeline = app.statsRedis.pipeline();
      for (const stream of app.queueKeys.allStreams()) {
        pipeline.xlen(stream);
        pipeline.xinfo("GROUPS", stream);
      }
      pipeline.xlen(app.queueKeys.deadLetters());
      pipeline.hmget(app.queueKeys.reconcileResult(), "drift", "unrepaired");
      const results = (await pipeline.exec()) ?? [];
      const partitions = app.queueKeys.partitions;
      deadLetters.set(Number(results[partitions * 2]?.[1] ?? 0));
      const [drift, unrepaired] = (results[partitions * 2 + 1]?.[1] as (string | null)[] | undefined) ?? [];
      reconcileDrift.set(Number(drift ?? 0));
      reconcileUnrepaired.set(Number(unrepaired ?? 0));
      app.queueKeys.allStreams().forEach((_, partition) => {
        const [, xlen] = results[partition * 2] ?? [];
        const [, groups] = results[partition * 2 + 1] ?? [];
        length.set({ partition }, Number(xlen ?? 0));
        const group = ((groups as unknown[][] | undefined) ?? [])
          .map((fields) =>
            Object.fromEntries(fields.flatMap((v, i, all) => (i % 2 ? [] : [[v, all[i + 1]]]))),
          )
          .find((fields) => fields.name === CONSUMER_GROUP);
        lag.set({ partition }, Number(group?.lag ?? 0));
        pending.set({ partition }, Number(group?.pending ?? 0));
      });
    } catch (error) {
      app.log.warn({ err: (error as Error).message }, "queue gauges unavailable");
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
});
