// `./floodgate bench flash-sale --compare-checkout DIR [--rounds N]`: the same sale, round after round, on this
// checkout's system and on the system of another checkout (its own start command, run from DIR with its own
// code, on databases and a Redis prefix of its own), one system at a time, the first side alternating each
// round, so before and after a change meet the same hour of this shared machine. The crowd, the audits and the
// figures are this checkout's bench for both. Each system is stopped, its Redis keys deleted and its databases
// dropped before the next starts.
import { readlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { dropDatabases } from "@floodgate/db";
import { REPO_ROOT } from "../harness/child-service.ts";
import { checkComparedCheckout, checkoutCommit, isThisCheckout } from "../harness/compared-checkout.ts";
import { type FreshFloodgate, freshFloodgate } from "../harness/fresh-floodgate.ts";
import { log } from "../harness/progress-line.ts";
import { waitForQuietMachine } from "../harness/quiet-machine.ts";
import { commitInfo } from "../harness/result-file.ts";
import { resultHeader } from "../harness/result-head.ts";
import { errorMessage, finishRun } from "../harness/scenario-run.ts";
import type { ScenarioContext, ScenarioOutcome } from "../scenario.ts";
import { failedAudits } from "./flash-sale-check.ts";
import {
  type ComparedSale,
  type ComparedSide,
  comparisonVerdict,
  type FlashSaleComparisonResult,
  saleFailed,
  saleFigures,
  sideMedians,
  summarizeComparison,
} from "./flash-sale-comparison-summary.ts";
import type { FlashSaleOptions } from "./flash-sale-options.ts";
import { describeSaleLoad, runSale, type SaleRecord } from "./flash-sale-run.ts";
import { noSaleMeasures } from "./flash-sale-summary.ts";

/** At most this long between two sales for the last one's load to fade (the 1-minute load average below 1):
 * each sale then starts on the machine the one before it found, whichever side ran last. */
const SETTLE_LIMIT_MS = 90_000;

export interface ComparisonPacing {
  /** Waited at most between sales; 0 starts each at once (the tests, whose sales are too small to matter). */
  settleLimitMs: number;
}

/** Round 1 runs this checkout first, round 2 the other, and so on. */
export const sidesInRound = <T>(sides: readonly [T, T], round: number): [T, T] =>
  round % 2 === 1 ? [sides[0], sides[1]] : [sides[1], sides[0]];

/** Where a process runs from (its working directory), or null where /proc cannot say. */
function workingDirectory(pid: number | null): string | null {
  if (pid === null) return null;
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

async function saleOnSide(
  side: ComparedSide,
  round: number,
  position: number,
  settledS: number,
  options: FlashSaleOptions,
  context: ScenarioContext,
): Promise<ComparedSale> {
  const record: SaleRecord = { settings: {}, services: null, ...noSaleMeasures() };
  const sale: ComparedSale = {
    round,
    position,
    side: side.key,
    startedAt: new Date().toISOString(),
    finishedAt: null,
    settledS,
    loadAverageAtStart: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
    ranFrom: null,
    figures: saleFigures(record),
    failedAudits: [],
    error: null,
    run: record,
  };
  // Each round's systems have a Redis prefix of their own (fgbench:<stamp>-r<round>-flash_<side>:), each side
  // its databases (floodgate_bench_flash_<side>*).
  const floodgate = freshFloodgate(
    { ...context, stamp: `${context.stamp}-r${round}` },
    { instance: `flash_${side.key}`, ...(side.key === "other" ? { checkout: side.checkout } : {}) },
  );
  const watched: FreshFloodgate = {
    ...floodgate,
    async start(workers, recorded) {
      await floodgate.start(workers, recorded);
      sale.ranFrom = workingDirectory(floodgate.system.pid);
    },
  };
  log(`round ${round}, sale ${position + 1}: ${side.label}`);
  try {
    await runSale(watched, options, `flash-${context.stamp}-r${round}-${side.key}`, record);
  } catch (error) {
    sale.error = errorMessage(error);
  }
  // The next sale must not share the machine with this one's vacuum or checkpoint of 20,000 payments.
  await dropDatabases([floodgate.system.config.databaseUrl, ...floodgate.system.shardUrls]);
  sale.finishedAt = new Date().toISOString();
  sale.figures = saleFigures(record);
  sale.failedAudits = failedAudits(record.checks).map((check) => `${check.name}: ${check.detail}`);
  return sale;
}

export async function runFlashSaleComparison(
  options: FlashSaleOptions,
  context: ScenarioContext,
  pacing: ComparisonPacing = { settleLimitMs: SETTLE_LIMIT_MS },
): Promise<ScenarioOutcome> {
  const otherRoot = checkComparedCheckout(options.compareCheckout ?? "");
  const own = commitInfo();
  const thisCommit = own.commit === null ? null : `${own.commit}${own.dirty ? "+dirty" : ""}`;
  const otherCommit = checkoutCommit(otherRoot);
  const sides: [ComparedSide, ComparedSide] = [
    {
      key: "this",
      label: `this checkout @${thisCommit ?? "?"}`,
      checkout: path.resolve(REPO_ROOT),
      commit: thisCommit,
    },
    {
      key: "other",
      // Comparing a checkout with itself is allowed: the ratio then shows how far the method spreads.
      label: `${isThisCheckout(otherRoot) ? "the same checkout again" : "other checkout"} @${otherCommit}`,
      checkout: otherRoot,
      commit: otherCommit,
    },
  ];
  const result: FlashSaleComparisonResult = {
    ...resultHeader("flash-sale", context, options, describeSaleLoad(options)),
    mode: "comparison",
    sides,
    sales: [],
    medians: [],
    verdict: null,
    error: null,
  };
  return finishRun(
    result,
    async () => {
      for (let round = 1; round <= (options.rounds ?? 1); round++) {
        for (const [position, side] of sidesInRound(sides, round).entries()) {
          const settledS = result.sales.length === 0 ? 0 : await waitForQuietMachine(pacing.settleLimitMs);
          const sale = await saleOnSide(side, round, position, settledS, options, context);
          result.sales.push(sale);
          result.services ??= sale.run.services;
          if (sale.error !== null) throw new Error(`round ${round}, ${side.label}: ${sale.error}`);
        }
      }
    },
    // Every sale stops its own system; what is left is the verdict, over the sales run, a run stopped early too.
    async () => {
      result.medians = sides.map((side) => sideMedians(side.key, result.sales));
      result.verdict = comparisonVerdict(result.medians, result.sales);
      const failed = result.sales.filter(saleFailed);
      if (result.error === null && failed.length > 0) {
        result.error = `audits failed in ${failed.map((sale) => `round ${sale.round} (${sale.side})`).join(", ")}`;
      }
    },
    summarizeComparison,
  );
}
