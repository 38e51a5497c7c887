import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderResultChart } from "../src/charts/result-chart.ts";
import { ChartInputError } from "../src/charts/result-node.ts";
import {
  couponDropResult,
  faultsResult,
  flashSaleResult,
  hotProductClusterResult,
  pairedPaymentsResult,
  ratePaymentsResult,
} from "./support/chart-fixtures.ts";
import { assertWellFormed, barHeights, linePoints, texts } from "./support/svg-checks.ts";

const RESULTS = new URL("../results", import.meta.url).pathname;

/** Each point right of the one before it, and higher on the page (smaller y) where the value is larger. */
function expectMonotonic(points: { x: number; y: number }[], values: number[]): void {
  expect(points).toHaveLength(values.length);
  for (let i = 1; i < points.length; i++) {
    expect(points[i]!.x).toBeGreaterThan(points[i - 1]!.x);
    const a = values[i - 1]!;
    const b = values[i]!;
    if (b > a) expect(points[i]!.y).toBeLessThan(points[i - 1]!.y);
    if (b < a) expect(points[i]!.y).toBeGreaterThan(points[i - 1]!.y);
    if (b === a) expect(points[i]!.y).toBe(points[i - 1]!.y);
  }
}

describe("renderResultChart", () => {
  it("payments --max --auth compare: both targets' stages side by side, with a legend, units and the command", () => {
    const svg = renderResultChart(pairedPaymentsResult(), "paired.json");
    assertWellFormed(svg);
    const words = texts(svg);
    expect(words).toEqual(
      expect.arrayContaining([
        "payments bench",
        "./floodgate bench payments --max --auth compare",
        "auth on",
        "AUTH=off",
        "auth on p99",
        "AUTH=off p50",
        "offered (payments/s)",
        "accepted (payments/s)",
        "response time (ms)",
      ]),
    );
    expect(words.some((w) => w.includes("2 x Test CPU"))).toBe(true);
    expectMonotonic(linePoints(svg, "auth on"), [500, 1000, 1900]);
    expectMonotonic(linePoints(svg, "AUTH=off p99"), [4, 6, 20]);
    // One scale for both: the same value lands at the same height.
    expect(linePoints(svg, "auth on")[0]!.y).toBeCloseTo(linePoints(svg, "offered")[0]!.y, 0);
  });

  it("payments: a member holding measured phases beyond the known targets is drawn too, named by its target", () => {
    const result = {
      ...pairedPaymentsResult(),
      peerRaw: {
        max: {
          target: "raw node:http",
          stages: [{ offeredRate: 500, acceptedRate: 480, p50Ms: 1, p99Ms: 3 }],
        },
      },
      baseline: { max: { stages: [{ offeredRate: 500, acceptedRate: 400, p50Ms: 2, p99Ms: 9 }] } },
    };
    const words = texts(renderResultChart(result, "peers.json"));
    expect(words).toEqual(expect.arrayContaining(["raw node:http", "raw node:http p99", "sync baseline"]));
  });

  it("payments at a fixed rate: accepted and p50/p99 second by second, a second without answers left as a gap", () => {
    const svg = renderResultChart(ratePaymentsResult(), "rate.json");
    assertWellFormed(svg);
    expect(texts(svg)).toEqual(
      expect.arrayContaining(["second of the load (s)", "Floodgate p50", "Floodgate p99"]),
    );
    expectMonotonic(linePoints(svg, "Floodgate"), [600, 1000, 1000, 1000, 400]);
    expectMonotonic(linePoints(svg, "Floodgate p99"), [9, 8, 30, 9]);
  });

  it("hot-product --redis cluster: one Redis beside the cluster, per second and per phase", () => {
    const svg = renderResultChart(hotProductClusterResult(), "hot.json");
    assertWellFormed(svg);
    expect(texts(svg)).toEqual(
      expect.arrayContaining(["one Redis", "Redis Cluster", "accepted (orders/s)", "sale", "payments"]),
    );
    expectMonotonic(linePoints(svg, "Redis Cluster"), [900, 1000, 1000]);
    expectMonotonic(linePoints(svg, "one Redis p99"), [10, 11, 12]);
    const [saleBar, paymentBar] = barHeights(svg, "one Redis");
    expect(paymentBar!).toBeGreaterThan(saleBar!);
  });

  it("coupon-drop: every answer per second, not only the 202s", () => {
    const svg = renderResultChart(couponDropResult(), "drop.json");
    assertWellFormed(svg);
    expect(texts(svg)).toEqual(expect.arrayContaining(["answered (answers/s)", "Floodgate"]));
    expectMonotonic(linePoints(svg, "Floodgate"), [9000, 11000]);
  });

  it("flash-sale: p50 and p99 of each step as bars, taller for the longer step", () => {
    const svg = renderResultChart(flashSaleResult(), "flash.json");
    assertWellFormed(svg);
    expect(texts(svg)).toEqual(expect.arrayContaining(["join", "poll discovery", "time (ms)", "users/s"]));
    const p99 = barHeights(svg, "p99");
    // join 70 ms, socket handshake 2,000 ms
    expect(p99[1]!).toBeGreaterThan(p99[0]!);
  });

  it("faults: each fault's answers per second with its seconds shaded, the burst beside the overload", () => {
    const svg = renderResultChart(faultsResult(), "faults.json");
    assertWellFormed(svg);
    expect(texts(svg)).toEqual(
      expect.arrayContaining([
        "redis-unreachable: shop clients' answers",
        "redis-unreachable: response time",
        "overload: the burst",
        "fault",
        "second of the phase (s)",
        "2xx accepted",
        "5xx",
      ]),
    );
    expectMonotonic(linePoints(svg, "5xx"), [0, 0, 1000, 2000, 0, 0]);
    expect(svg.match(/<rect[^>]*fill="#ffe3e3"/g)).toHaveLength(4);
  });

  it("a result of unknown shape fails naming the file and what it lacks", () => {
    const { floodgate: _, ...withoutTargets } = pairedPaymentsResult();
    expect(() => renderResultChart({ ...withoutTargets, floodgateAuthOff: null }, "odd.json")).toThrow(
      /^odd\.json: floodgate is missing/,
    );
    const stages = pairedPaymentsResult();
    (stages.floodgate.max.stages[1] as Record<string, unknown>).acceptedRate = "fast";
    expect(() => renderResultChart(stages, "odd.json")).toThrow(
      'odd.json: floodgate.max.stages[1].acceptedRate is "fast" (a number expected)',
    );
    expect(() => renderResultChart({ ...pairedPaymentsResult(), scenario: "tea" }, "tea.json")).toThrow(
      ChartInputError,
    );
    expect(() => renderResultChart([], "list.json")).toThrow(/^list\.json: the top level/);
  });

  it("a run that failed before measuring anything gets its title block, saying why", () => {
    const { floodgate: _, ...rest } = pairedPaymentsResult();
    const svg = renderResultChart(
      { ...rest, floodgate: { funding: {} }, floodgateAuthOff: null, error: "database gone" },
      "failed.json",
    );
    assertWellFormed(svg);
    expect(texts(svg).some((w) => w.includes("the run failed: database gone"))).toBe(true);
  });

  it("escapes what a result carries into the text", () => {
    const result = { ...pairedPaymentsResult(), error: 'a <b> & "c"' };
    const svg = renderResultChart(result, "escaped.json");
    assertWellFormed(svg);
    expect(texts(svg).some((w) => w.includes('a <b> & "c"'))).toBe(true);
  });
});

describe("every result file in bench/results", () => {
  // Committed ones: a local run's file is not part of the branch.
  const files = execFileSync("git", ["ls-files", "*.json"], { cwd: RESULTS, encoding: "utf8" })
    .split("\n")
    .filter((name) => name !== "");

  it("are there to draw", () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)("%s draws a well-formed chart with its axes labelled", (name) => {
    const svg = renderResultChart(JSON.parse(readFileSync(join(RESULTS, name), "utf8")), name);
    assertWellFormed(svg);
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="800"/);
    // A rate axis says its unit: "(payments/s)", "(per s)" (a faults run without the overload burst has only
    // the per-second answers), or the flash sale's "users/s".
    expect(texts(svg).some((w) => /(\/s|per s)\)$/.test(w) || w === "users/s")).toBe(true);
  });
});

describe("the well-formedness check the tests rely on", () => {
  it("refuses an unclosed or crossed tag, a stray < and an unescaped &", () => {
    expect(() => assertWellFormed("<svg><g></svg>")).toThrow();
    expect(() => assertWellFormed("<svg><g><text></g></text></svg>")).toThrow();
    expect(() => assertWellFormed("<svg><text>a < b</text></svg>")).toThrow();
    expect(() => assertWellFormed("<svg><text>a & b</text></svg>")).toThrow();
    expect(() => assertWellFormed('<svg a="1"><text>a &amp; b</text><g/></svg>')).not.toThrow();
  });
});
