// Product changes go to Postgres first (the truth for stock), then to the Redis state orders reserve against.
// These keep each answer honest about which of the two holds a change.
import type { ScriptedRedis } from "@floodgate/redis-connections";
import type { FastifyBaseLogger } from "fastify";
import { ProblemError } from "../errors/error-catalogue.ts";

/** Before Postgres: with Redis already away, refuse while nothing is stored, so a plain retry is safe. */
export function refuseWhileRedisIsAway(redis: ScriptedRedis): void {
  if (redis.status !== "ready") {
    throw new ProblemError("service_unavailable", {
      detail: "Redis is unreachable; nothing was stored. Retry the request.",
      retryAfterSeconds: 1,
    });
  }
}

/**
 * After the commit: a failed Redis write is not undone in Postgres (it may have landed after all, as on a
 * timeout, and orders may have moved the stock since), so the change stays for reconcile to carry over, and
 * the answer says not to repeat it.
 */
export async function writeAfterCommit<T>(
  log: FastifyBaseLogger,
  productId: string,
  consequence: string,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    log.warn({ err: error, product: productId }, "product stored in Postgres but not in Redis");
    throw new ProblemError("product_state_not_written", {
      detail: `Product ${productId} is stored, but Redis could not be updated: ${consequence}`,
      existingId: productId,
    });
  }
}

export function warnStateMissing(log: FastifyBaseLogger, productId: string): void {
  log.warn(
    { product: productId },
    "product state missing from Redis: orders for it are refused until reconcile rebuilds it",
  );
}
