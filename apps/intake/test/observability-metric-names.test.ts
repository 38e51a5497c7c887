// Every metric a dashboard panel or an alert rule reads is one the system serves: the intake's /metrics (an
// app built on this file's test environment) or a worker's registry. A renamed metric, or a typo in a panel,
// fails here rather than as an empty graph or an alert that can never fire.
import { createWorkerMetrics } from "@floodgate/metrics";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { get } from "./support/intake-test-kit.ts";
import { dashboardQueries, metricNames, ruleExpressions } from "./support/observability-files.ts";

let env: TestEnvironment;
let app: FastifyInstance;
// Prometheus writes `up` itself, for every target at every scrape: no process serves it.
const served = new Set<string>(["up"]);

/** The series names a Prometheus text exposition declares: a histogram's _bucket, _sum and _count too. */
function declaredSeries(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) => {
    if (type === "histogram") return [`${name}_bucket`, `${name}_sum`, `${name}_count`];
    if (type === "summary") return [name!, `${name}_sum`, `${name}_count`];
    return [name!];
  });
}

beforeAll(async () => {
  env = await createTestEnvironment("observability-metric-names");
  app = await buildApp(env.config, { logger: false });
  await app.ready();
  const intake = await get(app, "/metrics");
  expect(intake.statusCode).toBe(200);
  const worker = await createWorkerMetrics().registry.metrics();
  for (const name of [...declaredSeries(intake.body), ...declaredSeries(worker)]) served.add(name);
});

afterAll(async () => {
  await app?.close();
  await env?.cleanup();
});

describe("the observability kit's metric names", () => {
  it("reads the metric names out of PromQL", () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (route, le) (rate(floodgate_http_request_duration_seconds_bucket{status=~"429|503"}[$__rate_interval]))) > 2 and max(up)',
      ),
    ).toEqual(["floodgate_http_request_duration_seconds_bucket", "up"]);
  });

  it("are all served, for every dashboard panel", () => {
    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThan(20);
    const unknown = queries.flatMap(({ file, panel, expr }) =>
      metricNames(expr)
        .filter((name) => !served.has(name))
        .map((name) => `${file} "${panel}": ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it("are all served, for every alert rule", () => {
    const rules = ruleExpressions();
    expect(rules.length).toBeGreaterThanOrEqual(5);
    const unknown = rules.flatMap(({ file, expr }) =>
      metricNames(expr)
        .filter((name) => !served.has(name))
        .map((name) => `${file}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it("keeps Node's stock names beside Floodgate's", () => {
    for (const name of [
      "process_cpu_seconds_total",
      "nodejs_heap_size_used_bytes",
      "floodgate_end_to_end_seconds_bucket",
    ]) {
      expect(served.has(name), name).toBe(true);
    }
  });
});
