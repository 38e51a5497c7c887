// The raw ceiling (--peer raw): POST /v1/payments answered after one XADD of the body, nothing validated,
// authenticated, limited or deduplicated. What one Node process and this Redis reach with no product in the
// way; Floodgate's intake (schema, token, rate limit, idempotency in one script) is measured against it.
import Fastify, { type FastifyInstance } from "fastify";
import type { Redis } from "ioredis";

export function buildRawStreamPeer(redis: Redis, keyPrefix: string): FastifyInstance {
  const f = Fastify({ logger: false });
  const key = `${keyPrefix}payments`;
  f.get("/readyz", async () => ({ ok: true }));
  f.post("/v1/payments", async (req, reply) => {
    const id = await redis.xadd(key, "MAXLEN", "~", "100000", "*", "d", JSON.stringify(req.body));
    reply.code(202);
    return { id, status: "pending" };
  });
  return f;
}
