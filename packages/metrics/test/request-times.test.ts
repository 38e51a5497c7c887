// Request latencies are applied to their histogram in batches: a read must still see every one of them.
import { describe, expect, it } from "vitest";
import { createIntakeMetrics } from "../src/index.ts";

const countOf = async (metrics: ReturnType<typeof createIntakeMetrics>, status: string) => {
  const { values } = await metrics.requestSeconds.get();
  const count = values.find(
    (v) =>
      v.metricName === "floodgate_http_request_duration_seconds_count" &&
      v.labels.route === "/v1/payments" &&
      v.labels.status === status,
  );
  return count?.value ?? 0;
};

describe("request times", () => {
  it("are all in the histogram when it is read, pending or not", async () => {
    const metrics = createIntakeMetrics();
    for (let i = 0; i < 2500; i++) metrics.requestTimes.observe("POST", "/v1/payments", 202, 0.0004);
    metrics.requestTimes.observe("POST", "/v1/payments", 503, 0.002);
    expect(await countOf(metrics, "202")).toBe(2500);
    expect(await countOf(metrics, "503")).toBe(1);
    const text = await metrics.registry.metrics();
    expect(text).toContain(
      'floodgate_http_request_duration_seconds_bucket{le="0.0005",method="POST",route="/v1/payments",status="202"} 2500',
    );
    expect(text).toContain(
      'floodgate_http_request_duration_seconds_bucket{le="0.0025",method="POST",route="/v1/payments",status="503"} 1',
    );
  });

  it("give the same sums as observing each directly", async () => {
    const batched = createIntakeMetrics();
    const direct = createIntakeMetrics();
    const seconds = Array.from({ length: 1500 }, (_, i) => (i % 13) * 0.00037);
    for (const value of seconds) {
      batched.requestTimes.observe("GET", "/v1/operations/:id", 200, value);
      direct.requestSeconds.observe({ method: "GET", route: "/v1/operations/:id", status: "200" }, value);
    }
    expect((await batched.requestSeconds.get()).values).toEqual((await direct.requestSeconds.get()).values);
  });
});
