// `bench flash-sale --compare-checkout DIR`: a tiny comparison of this tree against a clone of its HEAD (its
// own node_modules and built packages, as `./floodgate start` leaves them), one round, and what makes a folder
// one that can be compared. The clone, not this tree again, is the other side, so the test can see that the
// other system really ran from DIR. The bench's own databases (floodgate_bench_flash_*) and Redis prefixes are
// used, as a run's: the CPU lock keeps bench runs and tests apart.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createPool } from "@floodgate/db";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OptionError, parseOptions } from "../src/bench-options.ts";
import { renderResultChart } from "../src/charts/result-chart.ts";
import { runFlashSaleComparison } from "../src/flash-sale/flash-sale-comparison.ts";
import type { FlashSaleComparisonResult } from "../src/flash-sale/flash-sale-comparison-summary.ts";
import { FLASH_SALE_OPTION_SPECS, toFlashSaleOptions } from "../src/flash-sale/flash-sale-options.ts";
import { flashSaleScenario } from "../src/flash-sale/flash-sale-scenario.ts";
import { benchEnvironment } from "../src/harness/bench-environment.ts";
import { REPO_ROOT } from "../src/harness/child-service.ts";
import { texts } from "./support/svg-checks.ts";

const parse = (...args: string[]) => toFlashSaleOptions(parseOptions(FLASH_SALE_OPTION_SPECS, args));
const refusal = (...args: string[]) =>
  flashSaleScenario.preflight?.(parseOptions(FLASH_SALE_OPTION_SPECS, args));
const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

let scratch: string;
let clone: string;
let headCommit: string;

beforeAll(() => {
  scratch = mkdtempSync(path.join(tmpdir(), "flash-sale-comparison-"));
  clone = path.join(scratch, "before");
  headCommit = run("git", ["rev-parse", "--short", "HEAD"], REPO_ROOT);
  // A clone of its own (sharing this repository's objects), not a worktree: nothing is written to this
  // repository's git metadata, and removing the folder removes it all.
  run("git", ["clone", "--quiet", "--no-checkout", "--shared", REPO_ROOT, clone], scratch);
  run("git", ["checkout", "--quiet", "--detach", run("git", ["rev-parse", "HEAD"], REPO_ROOT)], clone);
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("flash-sale --compare-checkout options", () => {
  it("takes a checkout and 3 rounds unless told", () => {
    expect(parse()).toMatchObject({ compareCheckout: null, rounds: null });
    expect(parse("--compare-checkout", "../before")).toMatchObject({
      compareCheckout: "../before",
      rounds: 3,
    });
    expect(parse("--compare-checkout=../before", "--rounds", "5")).toMatchObject({ rounds: 5 });
  });

  it.each([
    [["--rounds", "2"], "--rounds counts the rounds of a comparison: give it with --compare-checkout DIR"],
    [["--compare-checkout"], "--compare-checkout needs a path"],
    [["--compare-checkout", "--users", "10"], "--compare-checkout needs a path"],
    [["--compare-checkout", "x", "--rounds", "0"], "--rounds must be between 1 and 20, got 0"],
  ])("rejects %j with a clear message", (args, message) => {
    expect(() => parse(...args)).toThrow(OptionError);
    expect(() => parse(...args)).toThrow(message);
  });

  it("refuses, before anything starts, a folder that is not a checkout of this repository ready to run", () => {
    const missing = path.join(scratch, "nowhere");
    expect(refusal("--compare-checkout", missing)).toBe(`--compare-checkout ${missing}: no such directory`);
    const plain = path.join(scratch, "plain");
    mkdirSync(plain);
    expect(refusal("--compare-checkout", plain)).toMatch(/^--compare-checkout .*plain: not a git checkout/);
    expect(refusal("--compare-checkout", path.join(clone, "bench"))).toMatch(
      /: a folder inside the checkout .*, not its top/,
    );
    const otherRepo = path.join(scratch, "other-repo");
    mkdirSync(otherRepo);
    run("git", ["init", "--quiet"], otherRepo);
    writeFileSync(path.join(otherRepo, "package.json"), '{"name":"something-else"}');
    expect(refusal("--compare-checkout", otherRepo)).toMatch(/: not a checkout of this repository/);
    // The clone before `pnpm install`, then before its packages are built.
    expect(refusal("--compare-checkout", clone)).toMatch(/: node_modules is missing there/);
    expect(refusal("--users", "10")).toBeNull();
  });
});

describe("a comparison of two checkouts", () => {
  it("runs the sale on each side's own system, audits both and records them side by side", async () => {
    run("pnpm", ["install", "--frozen-lockfile", "--offline", "--reporter=silent"], clone);
    expect(refusal("--compare-checkout", clone)).toMatch(/packages\/node\/dist\/index\.js.* not built there/);
    // What the clone's `./floodgate start` builds before it starts.
    run(
      "pnpm",
      [
        "exec",
        "turbo",
        "run",
        "build",
        "--only",
        "--filter=@floodgate/checkout-sdk",
        "--filter=@floodgate/node",
      ],
      clone,
    );
    expect(refusal("--compare-checkout", clone)).toBeNull();

    const stamp = `test${process.pid}`;
    const options = parse(
      ...["--compare-checkout", clone, "--rounds", "1", "--users", "20", "--websockets", "10"],
      ...["--join-seconds", "1", "--connections", "10", "--slices", "1", "--round-trip-payments", "100"],
      ...["--workers", "1"],
    );
    const outcome = await runFlashSaleComparison(
      options,
      { startedAt: new Date(), stamp, logFile: path.join(scratch, "bench.log") },
      { settleLimitMs: 0 },
    );
    const result = outcome.result as unknown as FlashSaleComparisonResult;
    expect(outcome.error, outcome.summary.join("\n")).toBeUndefined();

    expect(result).toMatchObject({ scenario: "flash-sale", mode: "comparison", error: null });
    expect(result.sides.map((side) => [side.key, side.commit])).toEqual([
      ["this", expect.stringMatching(new RegExp(`^${headCommit}`))],
      ["other", headCommit],
    ]);
    // One sale a side, this checkout first in round 1, each system started from its own checkout.
    expect(result.sales.map((sale) => [sale.round, sale.position, sale.side])).toEqual([
      [1, 0, "this"],
      [1, 1, "other"],
    ]);
    expect(result.sales.map((sale) => sale.ranFrom)).toEqual([realpathSync(REPO_ROOT), realpathSync(clone)]);
    for (const sale of result.sales) {
      expect(sale.error).toBeNull();
      expect(sale.failedAudits).toEqual([]);
      const audits = sale.run.checks.filter((check) => check.kind === "audit");
      expect(audits.map((check) => check.name)).toEqual([
        "zero FIFO inversions",
        "every admitted user's payment applied once",
        "no 2xx on a guarded route without a valid token while the room queues",
        "rate limiting adds no Redis round trip",
      ]);
      expect(audits.every((check) => check.ok === true)).toBe(true);
      expect(sale.run.sale?.admission.admitted).toBe(20);
      expect(sale.run.sale?.delivery?.appliedOnce).toBe(20);
      expect(sale.figures.joinsAnsweredPerS).toBeGreaterThan(0);
      expect(sale.figures.joinP99Ms).toBeGreaterThan(0);
      expect(sale.figures.livePositions).toBe(sale.run.sale?.sockets.withPosition);
      expect(sale.figures.joinListenOverflows).toBe(sale.run.sale?.joins.listenQueue?.overflows ?? null);
      // Linux: the kernel's counters are read (the machine's, which other tests running beside may move).
      expect(sale.figures.joinListenOverflows).toBeGreaterThanOrEqual(0);
      expect(sale.run.settings.systemEnvironment).toMatchObject({ WORKERS: "1", ADMIN_API_KEY: "***" });
    }
    expect(result.medians.map((m) => [m.side, m.sales, m.failedSales])).toEqual([
      ["this", 1, 0],
      ["other", 1, 0],
    ]);
    // One sale a side: each median is that sale's figure, and the ratio is theirs.
    const [own, other] = result.sales.map((sale) => sale.figures.joinsAnsweredPerS!);
    expect(result.verdict).toMatchObject({
      name: "joins answered/s, this / other",
      ratio: Math.round((own! / other!) * 1000) / 1000,
      goal: 0.95,
      met: own! / other! >= 0.95,
    });

    // Stopped and cleaned: no database or Redis key of either side is left.
    const server = new URL(benchEnvironment().floodgateDatabaseUrl);
    server.pathname = "/postgres";
    const pool = createPool(server.toString(), { max: 1 });
    try {
      const left = await pool.query(
        "select datname from pg_database where datname like 'floodgate_bench_flash_%'",
      );
      expect(left.rows).toEqual([]);
    } finally {
      await pool.end();
    }
    const redis = new Redis(benchEnvironment().redisUrl);
    try {
      expect(await redis.keys(`fgbench:${stamp}*`)).toEqual([]);
    } finally {
      redis.disconnect();
    }

    // The chart shows both sides, and the verdict in its title block.
    const svgTexts = texts(renderResultChart(JSON.parse(JSON.stringify(result)), "comparison.json"));
    for (const side of result.sides) expect(svgTexts).toContain(side.label);
    expect(svgTexts.some((text) => text.startsWith("joins answered/s, this / other"))).toBe(true);
  }, 240_000);
});
