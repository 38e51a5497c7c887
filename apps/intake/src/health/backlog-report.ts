// The workers' backlog as /readyz reports it: for whoever reads the body, never a reason to be unready. Readiness
// says whether this process can take requests; a backlog is answered request by request (503 overloaded with
// Retry-After, auto rooms queueing), which needs the intakes in service. Out of service, every shopper would get a
// connection error instead and every waiting-room WebSocket would drop. A backlog nobody drains is for an alert
// (FloodgateBackpressureOn in infra/prometheus/rules) to tell the operator.
import type { FastifyInstance } from "fastify";
import type { ProbeResult } from "./store-probes.ts";

export interface BacklogReport {
  /** "ok", or that the workers acknowledge none of a backlog under backpressure. */
  state: ProbeResult;
  backpressure: boolean;
  backlog: number;
  /** null when the workers drain nothing (the backlog never ends at their rate). */
  drainSeconds: number | null;
}

/** What this process last read of the leader's measurement (room-directory.ts): no Redis call here. */
export function backlogReport(app: FastifyInstance): BacklogReport {
  const { backpressure, backlog, drainSeconds } = app.admission.directory.backlog;
  const stuck = backpressure && !Number.isFinite(drainSeconds);
  return {
    state: stuck ? `${backlog} operations queued and the workers acknowledge none` : "ok",
    backpressure,
    backlog,
    drainSeconds: Number.isFinite(drainSeconds) ? drainSeconds : null,
  };
}
