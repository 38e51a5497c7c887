// Request latencies are counted by request-times.ts, not by prom-client's Histogram: a read must answer exactly
// what that Histogram would for the same observations, and the scrape must show them.
import { Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { createIntakeMetrics } from "../src/index.ts";

const NAME = "floodgate_http_request_duration_seconds";
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** prom-client's own histogram, as the intake made it before. */
function referenceHistogram() {
  return new Histogram({
    name: NAME,
    help: "Intake request latency by route and status code",
    labelNames: ["method", "route", "status"] as const,
    buckets: BUCKETS,
    registers: [new Registry()],
  });
}

describe("request times", () => {
  it("are on the scrape, counted into their buckets", async () => {
    const metrics = createIntakeMetrics();
    for (let i = 0; i < 2500; i++) metrics.requestTimes.observe("POST", "/v1/payments", 202, 0.0004);
    metrics.requestTimes.observe("POST", "/v1/payments", 503, 0.002);
    const text = await metrics.registry.metrics();
    expect(text).toContain(`# TYPE ${NAME} histogram`);
    expect(text).toContain(
      `${NAME}_bucket{le="0.0005",method="POST",route="/v1/payments",status="202"} 2500`,
    );
    expect(text).toContain(`${NAME}_bucket{le="0.001",method="POST",route="/v1/payments",status="503"} 0`);
    expect(text).toContain(`${NAME}_bucket{le="0.0025",method="POST",route="/v1/payments",status="503"} 1`);
    expect(text).toContain(`${NAME}_bucket{le="+Inf",method="POST",route="/v1/payments",status="503"} 1`);
    expect(text).toContain(`${NAME}_count{method="POST",route="/v1/payments",status="202"} 2500`);
    expect(text).toContain(`${NAME}_sum{method="POST",route="/v1/payments",status="503"} 0.002`);
  });

  it("read as prom-client's Histogram reads the same observations: values, labels, order", async () => {
    const metrics = createIntakeMetrics();
    const reference = referenceHistogram();
    // Every bucket, the bounds themselves (a bound is inside its bucket), past the last, several series.
    const seconds = [...BUCKETS, 0, 2, ...Array.from({ length: 1500 }, (_, i) => (i % 29) * 0.00037)];
    const series = [
      ["GET", "/v1/operations/:id", 200],
      ["POST", "/v1/payments", 202],
      ["GET", "/v1/operations/:id", 404],
      ["POST", "/v1/payments", 429],
    ] as const;
    seconds.forEach((value, i) => {
      const [method, route, status] = series[i % series.length]!;
      metrics.requestTimes.observe(method, route, status, value);
      reference.observe({ method, route, status: String(status) }, value);
    });
    const ours = await metrics.requestTimes.get();
    const theirs = await reference.get();
    expect(ours.values).toEqual(theirs.values);
    expect({ ...ours, values: [] }).toEqual({ ...theirs, values: [] });
  });

  it("start over on a registry reset", async () => {
    const metrics = createIntakeMetrics();
    metrics.requestTimes.observe("POST", "/v1/payments", 202, 0.003);
    metrics.registry.resetMetrics();
    expect((await metrics.requestTimes.get()).values).toEqual([]);
    metrics.requestTimes.observe("POST", "/v1/payments", 202, 0.003);
    expect(await metrics.registry.metrics()).toContain(
      `${NAME}_count{method="POST",route="/v1/payments",status="202"} 1`,
    );
  });
});
