// An OperationWorker inside the test process, with its metrics and log lines at hand.
import { Writable } from "node:stream";
import type { Config } from "@floodgate/config";
import { createWorkerMetrics, type WorkerMetrics } from "@floodgate/metrics";
import { pino } from "pino";
import { OperationWorker } from "../../src/operation-worker.ts";

export interface InProcessWorker {
  worker: OperationWorker;
  metrics: WorkerMetrics;
  logs(): string;
  stop(): Promise<void>;
}

export async function startInProcessWorker(config: Config, consumer: string): Promise<InProcessWorker> {
  let logs = "";
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs += chunk;
      done();
    },
  });
  const metrics = createWorkerMetrics();
  const worker = new OperationWorker(config, consumer, pino({ level: "info" }, sink), metrics);
  await worker.start();
  let stopped: Promise<void> | undefined;
  return {
    worker,
    metrics,
    logs: () => logs,
    stop() {
      stopped ??= worker.stop();
      return stopped;
    },
  };
}

/** Sum of a counter over all its label values. */
export async function counterValue(
  counter: { get(): Promise<{ values: { value: number; labels: object }[] }> },
  labels: Record<string, string> = {},
): Promise<number> {
  const { values } = await counter.get();
  return values
    .filter((v) =>
      Object.entries(labels).every(([k, value]) => (v.labels as Record<string, string>)[k] === value),
    )
    .reduce((sum, v) => sum + v.value, 0);
}
