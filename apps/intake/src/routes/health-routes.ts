// /healthz: the process lives. /readyz: send me traffic. 200 when this process can accept (Redis takes a write,
// the workers drain, not shutting down); 503 otherwise, naming why. Every database's state is in the body and in
// floodgate_shard_up / floodgate_global_db_up, but never decides: one shard down must not take every intake out
// of a load balancer while they accept payments for it (applied once it is back).
import type { FastifyInstance } from "fastify";
import { redisWritable, workersDraining } from "../health/readiness-checks.ts";
import { StoreProbes } from "../health/store-probes.ts";

export async function healthRoutes(app: FastifyInstance) {
  const stores = new StoreProbes(app);

  app.get(
    "/healthz",
    {
      config: { auth: "public" },
      schema: { operationId: "getHealth", summary: "Liveness: the process lives", tags: ["Health"] },
    },
    async () => ({ status: "ok" }),
  );

  const readiness = {
    operationId: "getReadiness",
    summary: "Readiness: 200 when this process can accept, else 503 naming why",
    tags: ["Health"],
  };
  app.get("/readyz", { config: { auth: "public" }, schema: readiness }, async (_request, reply) => {
    const [redis, databases] = await Promise.all([redisWritable(app), stores.states()]);
    const workers = workersDraining(app);
    const draining = app.lifecycle.draining;
    const ready = !draining && redis === "ok" && workers.state === "ok";
    const shards: Record<string, string> = {};
    databases.shards.forEach((state, shard) => {
      shards[String(shard)] = state;
    });
    return reply.code(ready ? 200 : 503).send({
      status: draining ? "draining" : ready ? "ready" : "unavailable",
      checks: { redis, workers: workers.state },
      workers: {
        backpressure: workers.backpressure,
        backlog: workers.backlog,
        drainSeconds: workers.drainSeconds,
      },
      databases: { global: databases.global, shards },
    });
  });
}
