// Admission control on the intake: rate-limit decisions, refused admission tokens, the rooms (from the
// directory each process keeps), the WebSockets this process holds and what it pushed, and backpressure.
import { Counter, Gauge, type Registry } from "prom-client";
import { PendingCounts } from "./pending-counts.ts";

export function createAdmissionMetrics(registry: Registry) {
  const rateLimitDecisions: Counter<"route_class" | "scope" | "decision"> = new Counter({
    name: "floodgate_rate_limit_decisions_total",
    help: "Rate-limit decisions by route class, scope (user, ip) and decision (allowed, limited)",
    labelNames: ["route_class", "scope", "decision"] as const,
    registers: [registry],
    // Every read first adds the decisions still pending (counted on the request path).
    collect: (): void => decisionCounts.flush(),
  });
  const decisionCounts = new PendingCounts(rateLimitDecisions);
  return {
    rateLimitDecisions,
    /** One more rate-limit decision (every accepted request counts one per limited scope). */
    countRateLimitDecision(routeClass: string, scope: "user" | "ip", decision: "allowed" | "limited"): void {
      decisionCounts.add(routeClass, scope, decision);
    },
    rateLimitOvershoot: new Counter({
      name: "floodgate_rate_limit_overshoot_total",
      help: "Requests answered 2xx although their client address's bucket was empty: its token is taken beside the route's script, which had already accepted (bounded and charged to the address: docs/api.md, Rate limits)",
      labelNames: ["route_class"] as const,
      registers: [registry],
    }),
    admissionRefusals: new Counter({
      name: "floodgate_admission_tokens_rejected_total",
      help: "Requests on a queueing room's guarded routes refused for want of a valid admission, by reason: missing, malformed, bad_signature, expired, wrong_room, wrong_user, revoked, unknown_ticket, used (a one-shot token spent)",
      labelNames: ["reason"] as const,
      registers: [registry],
    }),
    overloadRefusals: new Counter({
      name: "floodgate_backpressure_refusals_total",
      help: "Requests refused with 503 because the backlog would take longer than BACKPRESSURE_SECONDS to drain",
      labelNames: ["route_class"] as const,
      registers: [registry],
    }),
    roomWaiting: new Gauge({
      name: "floodgate_room_waiting",
      help: "Tickets waiting in each room (queue and pre-queue)",
      labelNames: ["room"] as const,
      registers: [registry],
    }),
    roomQueueing: new Gauge({
      name: "floodgate_room_queueing",
      help: "1 while a room queues (guarded routes need an admission token), else 0",
      labelNames: ["room"] as const,
      registers: [registry],
    }),
    roomAbandoned: new Gauge({
      name: "floodgate_room_abandoned",
      help: "Places lost for want of a heartbeat, per room since it was created",
      labelNames: ["room"] as const,
      registers: [registry],
    }),
    roomAdmitRate: new Gauge({
      name: "floodgate_room_admit_rate",
      help: "Admissions per second in each room, measured over the last 10 s",
      labelNames: ["room"] as const,
      registers: [registry],
    }),
    roomAdmitted: new Counter({
      name: "floodgate_room_admitted_total",
      help: "Tickets admitted by this process while it was the admission leader (sum over processes)",
      labelNames: ["room"] as const,
      registers: [registry],
    }),
    websockets: new Gauge({
      name: "floodgate_room_websockets",
      help: "Waiting-room WebSockets this process holds open",
      registers: [registry],
    }),
    pushes: new Counter({
      name: "floodgate_room_pushes_total",
      help: "Messages pushed on waiting-room WebSockets by type (position, admitted, sold_out, closed, expired)",
      labelNames: ["type"] as const,
      registers: [registry],
    }),
    backpressure: new Gauge({
      name: "floodgate_backpressure_active",
      help: "1 while the workers' backlog would take longer than BACKPRESSURE_SECONDS to drain",
      registers: [registry],
    }),
    backlogDrainSeconds: new Gauge({
      name: "floodgate_backlog_drain_seconds",
      help: "The backlog over the workers' measured rate, as the admission leader last measured it (-1: not known yet, or nothing works it off)",
      registers: [registry],
    }),
  };
}

export type AdmissionMetrics = ReturnType<typeof createAdmissionMetrics>;
