// What decides whether this intake should get traffic: it can store what it accepts (Redis answers a write)
// and the workers drain what is stored (no backpressure without a drain). The databases are not here: accepting
// never touches Postgres (store-probes.ts reports them).
import type { FastifyInstance } from "fastify";
import { type ProbeResult, probe } from "./store-probes.ts";

/** The key the readiness write lands on; short-lived, so it never accumulates. */
export const readinessKey = (redisPrefix: string) => `${redisPrefix}readyz`;

/**
 * A SET with a short TTL on the scrape connection (the request connection's command count stays the requests'
 * own): a full or read-only Redis refuses it as it would refuse an enqueue. The request connection must be up too.
 */
export async function redisWritable(app: FastifyInstance): Promise<ProbeResult> {
  if (app.redis.status !== "ready") return `request connection ${app.redis.status}`;
  return probe(() => app.statsRedis.set(readinessKey(app.config.redisPrefix), Date.now(), "PX", 10_000));
}

export interface WorkersState {
  state: ProbeResult;
  backpressure: boolean;
  backlog: number;
  /** null when the workers drain nothing (the backlog never ends at their rate). */
  drainSeconds: number | null;
}

/** Backpressure with a drain is normal flow control (some classes wait, others proceed); without one, nothing moves. */
export function workersDraining(app: FastifyInstance): WorkersState {
  const { backpressure, backlog, drainSeconds } = app.admission.directory.backlog;
  const stuck = backpressure && !Number.isFinite(drainSeconds);
  return {
    state: stuck ? `${backlog} operations queued and the workers acknowledge none` : "ok",
    backpressure,
    backlog,
    drainSeconds: Number.isFinite(drainSeconds) ? drainSeconds : null,
  };
}
