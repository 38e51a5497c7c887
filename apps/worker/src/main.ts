// A worker process: one consumer in the group. `./floodgate start` runs WORKERS of them.
import { hostname } from "node:os";
import {
  createWorkerMetrics,
  EXIT_METRICS_PORT_IN_USE,
  MetricsPortInUseError,
  startMetricsListener,
} from "@floodgate/metrics";
import { pino } from "pino";
import { config } from "./env.ts";
import { OperationWorker } from "./operation-worker.ts";
import { checkShardIdentitiesOrExit } from "./shard-identity-guard.ts";

const index = config.workerIndex;
const consumer = `${hostname()}-${process.pid}`;
const log = pino({ level: config.logLevel, base: { service: "worker", consumer } });
const metrics = createWorkerMetrics();
await checkShardIdentitiesOrExit(config, log);
const worker = new OperationWorker(config, consumer, log, metrics);
let consuming = false;
const metricsPort = config.workerMetricsPort > 0 ? config.workerMetricsPort + index : 0;
// The port first: a taken one must stop this worker before it reads a single entry.
const metricsServer =
  metricsPort > 0
    ? await startMetricsListener({
        registry: metrics.registry,
        port: metricsPort,
        host: config.host,
        variable: "WORKER_METRICS_PORT",
        hint: "; 9464 is also OpenTelemetry's exporter default",
        ready: () => consuming,
      }).catch((error: Error) => {
        if (!(error instanceof MetricsPortInUseError)) throw error;
        log.fatal({ metricsPort }, error.message);
        process.exit(EXIT_METRICS_PORT_IN_USE);
      })
    : undefined;
await worker.start();
consuming = true;
log.info(
  {
    partitions: config.streamPartitions,
    shards: config.shardUrls.length,
    metricsPort: metricsServer ? metricsPort : null,
  },
  "worker consuming",
);

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    consuming = false;
    log.info({ signal }, "worker stopping: finishing the batch in flight");
    await worker.stop();
    metricsServer?.close();
    log.info("worker stopped");
    process.exit(0);
  });
}
