import type { FastifyInstance } from "fastify";
import { sql } from "kysely";

const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms)),
  ]);

export async function healthRoutes(app: FastifyInstance) {
  app.get("/healthz", { config: { auth: "public" } }, async () => ({ status: "ok" }));

  // Ready when Redis, every shard and the global database (coupon and product definitions, the admin API)
  // answer: a load balancer should not send traffic to an intake that would answer 503, and an operator sees
  // which dependency is missing.
  app.get("/readyz", { config: { auth: "public" } }, async (_request, reply) => {
    const checks: Record<string, string> = {};
    const probe = async (name: string, check: () => Promise<unknown>) => {
      try {
        await withTimeout(check(), 2000);
        checks[name] = "ok";
      } catch (error) {
        checks[name] = (error as Error).message || "unreachable";
      }
    };
    await Promise.all([
      probe("redis", () => app.redis.ping()),
      probe("global", () => sql`select 1`.execute(app.globalDb)),
      ...app.shards.databases.map((db, i) => probe(`shard_${i}`, () => sql`select 1`.execute(db))),
    ]);
    const ready = Object.values(checks).every((value) => value === "ok");
    return reply.code(ready ? 200 : 503).send({ status: ready ? "ready" : "unavailable", checks });
  });
}
