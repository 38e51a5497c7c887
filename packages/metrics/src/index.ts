export { Gauge, Registry } from "prom-client";
export { type AdmissionMetrics, createAdmissionMetrics } from "./admission-metrics.ts";
export { createIntakeMetrics, type IntakeMetrics } from "./intake-metrics.ts";
export { createWorkerMetrics, type WorkerMetrics } from "./worker-metrics.ts";
