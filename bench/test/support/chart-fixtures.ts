// Small results of each scenario, shaped as the bench writes them (only the fields the charts read), for the
// chart tests.
import { testResultHeader } from "./result-fixture.ts";

const head = (scenario: string, settings: Record<string, unknown>) => ({
  ...testResultHeader(scenario, settings),
  error: null,
});

const stage = (offeredRate: number, acceptedRate: number, p50Ms: number, p99Ms: number) => ({
  offeredRate,
  acceptedRate,
  p50Ms,
  p99Ms,
  passed: true,
});

/** --max --auth compare: two targets, three stages each. */
export const pairedPaymentsResult = () => ({
  ...head("payments", { max: true, auth: "compare", rate: 2000, redis: null }),
  floodgate: {
    max: { stages: [stage(500, 500, 1, 5), stage(1000, 1000, 1.5, 8), stage(2000, 1900, 3, 40)] },
  },
  floodgateAuthOff: {
    max: { stages: [stage(500, 501, 0.9, 4), stage(1000, 999, 1.2, 6), stage(2000, 1990, 2, 20)] },
  },
  floodgateCluster: null,
  baseline: null,
});

/** A fixed-rate run with its per-second series. */
export const ratePaymentsResult = () => ({
  ...head("payments", { max: false, rate: 1000 }),
  floodgate: {
    rate: {
      acceptedRate: 1000,
      intakeLatencyMs: { p50: 2, p99: 9 },
      perSecond: {
        accepted: [600, 1000, 1000, 1000, 400],
        responses: [600, 1000, 1000, 1000, 400],
        p50Ms: [2, 2, 3, 2, null],
        p99Ms: [9, 8, 30, 9, null],
      },
    },
  },
});

const sale = (accepted: number[]) => ({
  acceptedRate: 1000,
  acceptedPerSecond: accepted,
  latencyMs: { p50: 2, p99: 14 },
  perSecond: {
    accepted,
    responses: accepted,
    p50Ms: accepted.map(() => 2),
    p99Ms: accepted.map((_, i) => 10 + i),
  },
});

export const hotProductClusterResult = () => ({
  ...head("hot-product", { redis: "cluster" }),
  sale: sale([1000, 1000, 1000]),
  payment: { acceptedRate: 6000, latencyMs: { p50: 70, p99: 150 } },
  floodgateCluster: {
    sale: sale([900, 1000, 1000]),
    payment: { acceptedRate: 5900, latencyMs: { p50: 80, p99: 180 } },
  },
  max: null,
});

export const couponDropResult = () => ({
  ...head("coupon-drop", { redis: null }),
  load: {
    rate: 11000,
    latencyMs: { p50: 7, p99: 22 },
    perSecond: { accepted: [500, 500], responses: [9000, 11000], p50Ms: [7, 8], p99Ms: [20, 24] },
  },
});

export const flashSaleResult = () => ({
  ...head("flash-sale", {}),
  sale: {
    joins: { offeredRate: 10000, answeredRate: 8800, latencyMs: { p50: 14, p99: 70 } },
    admission: { admitted: 20000, seconds: 10, admitPerSecond: 2000 },
    pushDelayMs: { p50: 9, p99: 54 },
    socketHandshakeMs: { p50: 1000, p99: 2000 },
    pollDiscoveryMs: { p50: 1100, p99: 2300 },
    payments: { latencyMs: { p50: 26, p99: 300 } },
    delivery: { endToEndMs: { p50: 73, p99: 388 } },
  },
});

const second = (s: number, accepted: number, fiveXx: number, p99Ms: number | null) => ({
  second: s,
  offered: 1000,
  accepted,
  fiveXx,
  backlog: 0,
  p50Ms: p99Ms === null ? null : p99Ms / 4,
  p99Ms,
});

export const faultsResult = () => ({
  ...head("faults", { faults: ["redis-unreachable", "overload"] }),
  sustainable: {
    steps: [
      { targetRate: 2000, acceptedRate: 2000, p99Ms: 9, passed: true },
      { targetRate: 4000, acceptedRate: 3500, p99Ms: 97, passed: false },
    ],
  },
  faults: [
    {
      name: "redis-unreachable",
      faultStartSecond: 2,
      faultEndSecond: 4,
      overload: null,
      timeline: [
        second(0, 1000, 0, 9),
        second(1, 1000, 0, 9),
        second(2, 0, 1000, 100),
        second(3, 0, 2000, 200),
        second(4, 2500, 0, 50),
        second(5, 1000, 0, 9),
      ],
    },
    {
      name: "overload",
      faultStartSecond: 1,
      faultEndSecond: 3,
      overload: { perSecond: { sent: [5000, 5000], answered: [4800, 5100], accepted: [3000, 2500] } },
      timeline: [
        second(0, 1000, 0, 9),
        second(1, 800, 200, 300),
        second(2, 900, 100, 250),
        second(3, 1000, 0, 10),
      ],
    },
  ],
});
