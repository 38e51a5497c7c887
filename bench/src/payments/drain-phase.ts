// --drain: the seed's second test. Queue N payments while no worker runs, then start the workers and time
// until every accepted payment is in the shards. Restarting the system is the only control the start
// command offers over workers, so the clock starts when the system with workers is spawned.

import type { DeliveryAudit } from "../audits/delivery-audit.ts";
import { awaitDelivery } from "../audits/delivery-wait.ts";
import type { FloodgateSystem } from "../harness/floodgate-system.ts";
import { runLoad } from "../harness/load-runner.ts";
import { paymentRequest } from "../harness/payment-requests.ts";
import { log } from "../harness/progress-line.ts";
import { type RedisMemory, startMemoryMeasure } from "../redis-footprint/memory-per-payment.ts";
import type { RedisFootprint } from "../redis-footprint/system-footprint.ts";

export interface DrainResult {
  requested: number;
  accepted: number;
  non2xx: number;
  errors: number;
  /** Rate at which intake queued the payments with no worker running. */
  queueRate: number;
  /** Spawn of the system with workers to /readyz. */
  startupMs: number;
  /** Spawn of the system with workers to the last payment applied. */
  drainSeconds: number;
  drainRate: number;
  /** accepted / (last applied - first applied): the workers' own pace, without startup. */
  workerRate: number | null;
  allApplied: boolean;
  audit: DeliveryAudit;
  /** Redis memory per accepted payment once drained and trimmed (null: the read failed). */
  redisMemory: RedisMemory | null;
}

export async function runDrainPhase(options: {
  system: FloodgateSystem;
  count: number;
  workers: number;
  connections: number;
  users: number;
  keyPrefix: string;
  footprint: RedisFootprint;
}): Promise<DrainResult> {
  const { system } = options;
  log("drain: restarting the system with WORKERS=0 to queue payments");
  await system.start(0);
  const memory = await startMemoryMeasure(options.footprint);
  const since = new Date();
  const acceptedIds: string[] = [];
  const load = await runLoad({
    label: "drain queueing",
    url: system.target.baseUrl,
    connections: options.connections,
    rate: null,
    amount: options.count,
    request: paymentRequest({
      users: options.users,
      keyPrefix: options.keyPrefix,
      acceptedIds,
      identity: system.identity,
    }),
  });
  const queueRate = Math.round(load.ok / load.durationS);
  log(`drain: ${acceptedIds.length} payments queued at ${queueRate}/s; starting ${options.workers} workers`);
  await system.stop();
  const service = await system.start(options.workers);
  const { audit, allApplied } = await awaitDelivery({
    label: "drain",
    shards: system.shards,
    since,
    acceptedIds,
    // At least 2 minutes, more for big queues (100/s is far below any healthy drain rate).
    timeoutMs: Math.max(120_000, (acceptedIds.length / 100) * 1000),
  });
  const lastApplied = audit.lastAppliedMs ?? Date.now();
  const drainSeconds = Math.round(lastApplied - service.spawnedAt) / 1000;
  const redisMemory = await memory.finish(audit.accepted);
  const workerSpan = (audit.lastAppliedMs ?? 0) - (audit.firstAppliedMs ?? 0);
  return {
    requested: options.count,
    accepted: acceptedIds.length,
    non2xx: load.non2xx,
    errors: load.errors,
    queueRate,
    startupMs: service.readyAt - service.spawnedAt,
    drainSeconds,
    drainRate: Math.round(audit.appliedOnce / Math.max(drainSeconds, 0.001)),
    workerRate: workerSpan > 0 ? Math.round((audit.appliedOnce * 1000) / workerSpan) : null,
    allApplied,
    audit,
    redisMemory,
  };
}
