// The bodies /healthz and /readyz answer, for the serializer and the OpenAPI document alike. /readyz answers the
// same report whether ready (200) or not (503): a load balancer reads the status code, a person the body.

/** "ok", or what went wrong (an error's message, a timeout): store-probes.ts. */
const probeResult = { type: "string", description: '"ok", or what went wrong.' } as const;

export const healthResponseSchema = {
  type: "object",
  required: ["status"],
  additionalProperties: false,
  properties: { status: { type: "string", enum: ["ok"] } },
} as const;

export const readinessResponseSchema = {
  type: "object",
  required: ["status", "checks", "workers", "databases"],
  additionalProperties: false,
  properties: {
    status: {
      type: "string",
      enum: ["ready", "unavailable", "draining"],
      description: "ready (200); unavailable: Redis takes no write (503); draining: shutting down (503).",
    },
    checks: {
      type: "object",
      required: ["redis"],
      additionalProperties: false,
      properties: { redis: probeResult },
    },
    workers: {
      type: "object",
      description: "The workers' backlog: reported, never a reason to be unready.",
      required: ["state", "backpressure", "backlog", "drainSeconds"],
      additionalProperties: false,
      properties: {
        state: probeResult,
        backpressure: { type: "boolean" },
        backlog: { type: "integer", minimum: 0 },
        drainSeconds: {
          type: ["number", "null"],
          description: "null when the workers drain nothing.",
        },
      },
    },
    databases: {
      type: "object",
      description: "Each database's state: reported, never a reason to be unready (accepting reads none).",
      required: ["global", "shards"],
      additionalProperties: false,
      properties: {
        global: probeResult,
        shards: { type: "object", description: "By shard index.", additionalProperties: probeResult },
      },
    },
  },
} as const;

/** Prometheus's text exposition format, as prom-client writes it. */
export const metricsTextSchema = { type: "string" } as const;
