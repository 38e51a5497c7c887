// A worker process: one consumer in the group. `./floodgate start` runs WORKERS of them.
import { hostname } from "node:os";
import { createWorkerMetrics } from "@floodgate/metrics";
import { pino } from "pino";
import { config } from "./env.ts";
import { startMetricsServer } from "./metrics-server.ts";
import { OperationWorker } from "./operation-worker.ts";
import { checkShardIdentitiesOrExit } from "./shard-identity-guard.ts";

const index = config.workerIndex;
const consumer = `${hostname()}-${process.pid}`;
const log = pino({ level: config.logLevel, base: { service: "worker", consumer } });
const metrics = createWorkerMetrics();
await checkShardIdentitiesOrExit(config, log);
const worker = new OperationWorker(config, consumer, log, metrics);
await worker.start();
const metricsServer =
  config.workerMetricsPort > 0
    ? await startMetricsServer(metrics.registry, config.workerMetricsPort + index, config.host)
    : undefined;
log.info(
  {
    partitions: config.streamPartitions,
    shards: config.shardUrls.length,
    metricsPort: metricsServer ? config.workerMetricsPort + index : null,
  },
  "worker consuming",
);

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "worker stopping: finishing the batch in flight");
    await worker.stop();
    metricsServer?.close();
    log.info("worker stopped");
    process.exit(0);
  });
}
