// The queue-library peer (--peer bullmq): POST /v1/payments answered once BullMQ has added a job, the
// Idempotency-Key as its job id (BullMQ's own deduplication). No worker runs: like Floodgate's intake with
// WORKERS=0, only the accepting side is measured.
import { Queue } from "bullmq";
import Fastify, { type FastifyInstance } from "fastify";
import type { Redis } from "ioredis";

export function buildBullmqPeer(redis: Redis, keyPrefix: string): FastifyInstance {
  const f = Fastify({ logger: false });
  // BullMQ joins prefix and queue name with ":" itself.
  const queue = new Queue("payments", { connection: redis, prefix: `${keyPrefix}bull` });
  f.get("/readyz", async () => {
    await queue.waitUntilReady();
    return { ok: true };
  });
  f.post("/v1/payments", async (req, reply) => {
    const jobId = req.headers["idempotency-key"];
    const job = await queue.add("pay", req.body, {
      jobId: typeof jobId === "string" ? jobId : undefined,
      removeOnComplete: true,
    });
    reply.code(202);
    return { id: job.id, status: "pending" };
  });
  f.addHook("onClose", () => queue.close());
  return f;
}
