// The queue-library peer (--peer bullmq): POST /v1/payments answered once BullMQ has added a job, the
// Idempotency-Key as its job id (BullMQ's own deduplication). No worker runs: like Floodgate's intake with
// WORKERS=0, only the accepting side is measured.
import { Queue } from "bullmq";
import Fastify, { type FastifyInstance } from "fastify";
import type { Redis } from "ioredis";

const QUEUE_NAME = "payments";
/** BullMQ's own prefix under the peer's key prefix; BullMQ joins it and the queue name with ":" itself. */
const bullPrefix = (keyPrefix: string): string => `${keyPrefix}bull`;

/** The glob of the job hashes whose ids (the requests' Idempotency-Keys) start with `jobIdPrefix`. */
export function bullmqJobKeys(keyPrefix: string, jobIdPrefix: string): string {
  return `${bullPrefix(keyPrefix)}:${QUEUE_NAME}:${jobIdPrefix}*`;
}

export function buildBullmqPeer(redis: Redis, keyPrefix: string): FastifyInstance {
  const f = Fastify({ logger: false });
  const queue = new Queue(QUEUE_NAME, { connection: redis, prefix: bullPrefix(keyPrefix) });
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
