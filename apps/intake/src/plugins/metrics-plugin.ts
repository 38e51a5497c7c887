import { createIntakeMetrics, type IntakeMetrics } from "@floodgate/metrics";
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { metricsTextSchema } from "../health/health-schemas.ts";
import { registerQueueGauges } from "../scrape-gauges/queue-gauges.ts";
import { registerRedisMemoryGauges } from "../scrape-gauges/redis-memory-gauges.ts";

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

  // Read at every collect, so the process's own metrics port (server.ts) serves them too; statsRedis and
  // queueKeys are decorated after this plugin, hence the functions.
  registerRedisMemoryGauges(metrics.registry, () => app.statsRedis);

  // Queue depth, dead letters and the last reconcile: read from Redis at each collect, never on the request path.
  registerQueueGauges(metrics.registry, {
    redis: () => app.statsRedis,
    keys: () => app.queueKeys,
    log: app.log,
  });

  const docs = {
    operationId: "getMetrics",
    summary: "Prometheus metrics",
    tags: ["Health"],
    documented: { answers: { 200: "Every metric of this process, in Prometheus's text format." } },
    // A string body with its content type set is sent as it is: this schema is the document's, not a serializer's.
    response: { 200: { content: { [metrics.registry.contentType]: { schema: metricsTextSchema } } } },
  };
  app.get("/metrics", { config: { auth: "public" }, schema: docs }, async (_request, reply) => {
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
});
