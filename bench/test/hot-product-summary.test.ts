import { describe, expect, it } from "vitest";
import type { DeliveryAudit } from "../src/audits/delivery-audit.ts";
import type { LatencySummary } from "../src/harness/latency-summary.ts";
import type { HotProductStage } from "../src/hot-product/hot-product-max-search.ts";
import type { SaleResult } from "../src/hot-product/hot-product-sale.ts";
import {
  emptyHotProductRun,
  type HotProductResult,
  type HotProductRun,
  summarizeHotProduct,
} from "../src/hot-product/hot-product-summary.ts";
import { compareHotProducts } from "../src/hot-product/hot-product-topology.ts";
import type { OrderPaymentResult } from "../src/hot-product/order-payment-phase.ts";
import { TEST_REDIS_CLUSTER, testResultHeader } from "./support/result-fixture.ts";

const latency = (p99: number): LatencySummary => ({
  count: 1000,
  min: 1,
  mean: p99 / 4,
  p50: p99 / 5,
  p95: p99 / 2,
  p99,
  max: p99 * 2,
});

const sale = (acceptedRate: number, p99: number): SaleResult => ({
  productId: "prd_1",
  stock: 1000,
  offeredRate: 2000,
  connections: 10,
  slices: 1,
  requests: 1010,
  responses: 1010,
  accepted: 1000,
  uniqueOrderIds: 1000,
  outOfStock: 10,
  failures: 0,
  errors: 0,
  timeouts: 0,
  statusCounts: { 202: 1000, 409: 10 },
  durationS: 0.5,
  responseRate: 2020,
  acceptedPerSecond: [acceptedRate],
  acceptedRate,
  latencyMs: latency(p99),
  cpu: null,
  nextOrder: { status: 409, code: "out_of_stock" },
  ordersRecorded: { rows: 1000, complete: true, waitedMs: 50 },
  stockAfterSale: null,
});

const payment = (acceptedRate: number) =>
  ({
    orders: 1000,
    connections: 10,
    accepted: 1000,
    non2xx: 0,
    errors: 0,
    durationS: 1000 / acceptedRate,
    acceptedRate,
    latencyMs: latency(9),
    allApplied: true,
    delivery: { endToEndMs: latency(100) } as DeliveryAudit,
  }) as OrderPaymentResult;

const saleRun = (rate: number, p99: number, paid: number): HotProductRun => ({
  ...emptyHotProductRun(),
  sale: sale(rate, p99),
  payment: payment(paid),
  invariants: { checks: [{ name: "exactly the stock sold", ok: true, detail: "" }], ok: true },
});

const result = (single: HotProductRun, cluster: HotProductRun): HotProductResult => ({
  ...testResultHeader("hot-product", { workers: 2, redis: "cluster" }),
  ...single,
  floodgateCluster: cluster,
  redisCluster: TEST_REDIS_CLUSTER,
  redisTopology: compareHotProducts(single, cluster),
  error: null,
});

describe("the hot-product summary with --redis cluster", () => {
  it("prints one run without naming a topology on the bench Redis alone", () => {
    const alone: HotProductResult = {
      ...result(saleRun(2000, 20, 3000), saleRun(1500, 45, 2400)),
      settings: { workers: 2, redis: "single" },
      floodgateCluster: null,
      redisCluster: null,
      redisTopology: null,
    };
    const lines = summarizeHotProduct(alone);
    expect(lines.filter((line) => line === "invariants: hold")).toHaveLength(1);
    expect(lines.join("\n")).not.toMatch(/===|Redis Cluster|redis topology/);
  });

  it("prints the sale and the payments on both, then the ratios of their rates", () => {
    const lines = summarizeHotProduct(result(saleRun(2000, 20, 3000), saleRun(1500, 45, 2400)));
    const single = lines.indexOf("=== on one Redis (the bench Redis)");
    const cluster = lines.indexOf(
      "=== on a Redis Cluster (3 masters, ports 7001, 7002, 7003, no replicas, nothing persisted), orders in two steps",
    );
    expect(single).toBeGreaterThan(0);
    expect(cluster).toBeGreaterThan(single);
    expect(lines.slice(single, cluster).join("\n")).toMatch(/orders\/s 2,000 [^\n]*\n[^\n]*p99 20\.0 ms/);
    expect(lines.slice(cluster).join("\n")).toMatch(/orders\/s 1,500 [^\n]*\n[^\n]*p99 45\.0 ms/);
    expect(lines.filter((line) => line === "invariants: hold")).toHaveLength(2);
    expect(lines).toContain(
      "redis topology, sale (offered 2,000/s): one Redis 2,000 orders/s (p99 20.0 ms), Redis Cluster 1,500 orders/s (p99 45.0 ms); cluster / one Redis 0.75 (75.0 %)",
    );
    expect(lines).toContain(
      "redis topology, payments (as fast as the intake answers): one Redis 3,000 payments/s (p99 9.0 ms), Redis Cluster 2,400 payments/s (p99 9.0 ms); cluster / one Redis 0.8 (80.0 %)",
    );
    expect(lines.at(-1)).toMatch(/one after the other, both on these 2 cpus .*what this machine shows/);
  });

  it("keeps a --max stage's invariants apart from its verdict, naming what a failed stage missed", () => {
    const stage = (p99: number, passed: boolean, ok: boolean) =>
      ({
        offeredRate: 2000,
        acceptedRate: 2000,
        passed,
        sale: sale(2000, p99),
        invariants: {
          checks: ok ? [] : [{ name: "exactly the stock sold", ok: false, detail: "1001 sold" }],
          ok,
        },
      }) as HotProductStage;
    const run: HotProductRun = {
      ...emptyHotProductRun(),
      max: {
        criterion: "p99 < 50 ms",
        stageDurationS: 10,
        maxAcceptedRate: 2000,
        stages: [stage(30, true, true), stage(73, false, true), stage(30, true, false)],
      },
    };
    const lines = summarizeHotProduct(result(run, run));
    expect(lines.find((line) => line.startsWith("  stage 1:"))).toMatch(/; invariants hold; stage pass$/);
    expect(lines.find((line) => line.startsWith("  stage 2:"))).toMatch(
      /; invariants hold; stage fail \(p99 73 ms >= 50 ms\)$/,
    );
    expect(lines.find((line) => line.startsWith("  stage 3:"))).toMatch(/; invariants BROKEN; stage pass$/);
  });

  it("compares --max's best passing stages, with no ratio when a search found none", () => {
    const stage = (offeredRate: number, passed: boolean) =>
      ({
        offeredRate,
        acceptedRate: offeredRate,
        passed,
        sale: sale(offeredRate, passed ? 30 : 90),
        invariants: { checks: [], ok: true },
      }) as HotProductStage;
    const max = (best: number | null, stages: HotProductStage[]): HotProductRun => ({
      ...emptyHotProductRun(),
      max: { criterion: "p99 < 50 ms", stageDurationS: 10, maxAcceptedRate: best, stages },
    });
    const found = result(
      max(8000, [stage(4000, true), stage(8000, true), stage(16_000, false)]),
      max(4000, [stage(4000, true), stage(8000, false)]),
    );
    const lines = summarizeHotProduct(found);
    expect(lines.filter((line) => line.startsWith("--max (p99 < 50 ms"))).toHaveLength(2);
    expect(lines).toContain(
      "redis topology, --max (the searches one after the other): one Redis 8,000 orders/s (p99 30.0 ms), Redis Cluster 4,000 orders/s (p99 30.0 ms); cluster / one Redis 0.5 (50.0 %)",
    );
    expect(found.redisTopology).toHaveLength(1);
    const none = compareHotProducts(found, max(null, [stage(4000, false)]));
    expect(none[0]).toMatchObject({ cluster: { rate: null, p99Ms: null }, ratio: null });
  });
});
