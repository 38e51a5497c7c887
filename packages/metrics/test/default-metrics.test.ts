// Node's default metrics keep their stock names on both registries, so existing Node dashboards and alerts
// (process_cpu_seconds_total, nodejs_heap_size_used_bytes, nodejs_eventloop_lag_seconds) match them as they are.
import { describe, expect, it } from "vitest";
import { createIntakeMetrics, createWorkerMetrics } from "../src/index.ts";

const STOCK = [
  "process_cpu_seconds_total",
  "process_resident_memory_bytes",
  "process_start_time_seconds",
  "nodejs_eventloop_lag_seconds",
  "nodejs_heap_size_used_bytes",
  "nodejs_gc_duration_seconds",
];

describe.each([
  ["intake", () => createIntakeMetrics().registry],
  ["worker", () => createWorkerMetrics().registry],
])("the %s registry", (name, registry) => {
  it("exposes Node's default metrics under their stock names, with no prefix", async () => {
    const text = await registry().metrics();
    for (const stock of STOCK) {
      expect(text).toMatch(new RegExp(`^# TYPE ${stock} `, "m"));
      expect(text).not.toContain(`floodgate_${name}_${stock}`);
    }
  });
});
