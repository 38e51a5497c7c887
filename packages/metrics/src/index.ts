export { Gauge, Registry } from "prom-client";
export { type AdmissionMetrics, createAdmissionMetrics } from "./admission-metrics.ts";
export { createIntakeMetrics, type IntakeMetrics } from "./intake-metrics.ts";
export {
  EXIT_METRICS_PORT_IN_USE,
  type MetricsListenerOptions,
  MetricsPortInUseError,
  startMetricsListener,
} from "./metrics-listener.ts";
export { createWorkerMetrics, type WorkerMetrics } from "./worker-metrics.ts";
