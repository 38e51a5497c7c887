// /healthz: the process lives. /readyz: send me traffic. 200 when this process can take requests (Redis takes a
// write, not shutting down); 503 otherwise, naming why. The workers' backlog and every database's state are in the
// body (and floodgate_shard_up / floodgate_global_db_up), but never decide: one shard down, or a backlog no worker
// drains, must not take every intake out of a load balancer while they can still answer for it (a shard's
// payments applied once it is back; a backlog with 503 and Retry-After, rooms queueing, their sockets kept open).
import type { FastifyInstance } from "fastify";
import { backlogReport } from "../health/backlog-report.ts";
import { healthResponseSchema, readinessResponseSchema } from "../health/health-schemas.ts";
import { redisWritable } from "../health/readiness-checks.ts";
import { StoreProbes } from "../health/store-probes.ts";

export async function healthRoutes(app: FastifyInstance) {
  const stores = new StoreProbes(app);

  app.get(
    "/healthz",
    {
      config: { auth: "public" },
      schema: {
        operationId: "getHealth",
        summary: "Liveness: the process lives",
        tags: ["Health"],
        documented: { answers: { 200: "The process lives (nothing else is checked)." } },
        response: { 200: healthResponseSchema },
      },
    },
    async () => ({ status: "ok" }),
  );

  const readiness = {
    operationId: "getReadiness",
    summary: "Readiness: 200 when this process can accept, else 503 naming why",
    tags: ["Health"],
    documented: {
      answers: {
        200: "Ready: send this process traffic.",
        503: "Not ready (Redis takes no write, or shutting down): the same report, its status saying why.",
      },
    },
    response: { 200: readinessResponseSchema, 503: readinessResponseSchema },
  };
  app.get("/readyz", { config: { auth: "public" }, schema: readiness }, async (_request, reply) => {
    const [redis, databases] = await Promise.all([redisWritable(app), stores.states()]);
    const draining = app.lifecycle.draining;
    const ready = !draining && redis === "ok";
    const shards: Record<string, string> = {};
    databases.shards.forEach((state, shard) => {
      shards[String(shard)] = state;
    });
    return reply.code(ready ? 200 : 503).send({
      status: draining ? "draining" : ready ? "ready" : "unavailable",
      checks: { redis },
      workers: backlogReport(app),
      databases: { global: databases.global, shards },
    });
  });
}
