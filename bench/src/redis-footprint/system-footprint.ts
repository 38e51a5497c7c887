// Where one Floodgate keeps its queue in Redis, and how long its keys live: what the memory measure needs to
// find its streams and to name the TTLs that decide the figure. Read from the configuration the system is
// started with (loadConfig on its environment) and the queue's own key layout, so neither is restated here.
import { loadConfig } from "@floodgate/config";
import { QueueKeys } from "@floodgate/queue";
import type { FreshFloodgate } from "../harness/fresh-floodgate.ts";

export interface RedisFootprint {
  /** The Redis the bench reads (the direct address, not a proxy the system may be routed through). */
  redisUrl: string;
  /** The system's partition streams. */
  streams: string[];
  statusTtlSeconds: number;
  idempotencyTtlSeconds: number;
}

export function redisFootprint(floodgate: FreshFloodgate): RedisFootprint {
  const { system } = floodgate;
  // The worker count changes nothing read here; the secrets must be the real ones to pass validation.
  const config = loadConfig(system.environment(1));
  return {
    redisUrl: system.config.redisUrl,
    streams: new QueueKeys(system.config.redisPrefix, config.streamPartitions).allStreams(),
    statusTtlSeconds: config.statusTtlSeconds,
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
  };
}
