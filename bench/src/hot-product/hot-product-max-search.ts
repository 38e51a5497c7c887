// --max for the hot product: the search of max-rate-plan.ts over sales, each stage a fresh product with
// `rate x stageDurationS` units sold out at `rate`/s, so a stage lasts about stageDurationS when the pace is
// kept. Pass: order p99 < 50 ms, accepted >= 95% of offered, failures <= 0.1% (409s are answers, not
// failures). Each stage also checks the sale's invariants once its orders are recorded.

import {
  DEFAULT_MAX_RATE_PLAN,
  type MaxRatePlan,
  maxAcceptedRate,
  nextRate,
  type StageMeasures,
  stagePassed,
  stageShortfalls,
} from "../harness/max-rate-plan.ts";
import { log } from "../harness/progress-line.ts";
import { checkSale, collectChecks, type HotProductInvariants } from "./hot-product-invariants.ts";
import { runSale, type SaleResult, type SaleTarget } from "./hot-product-sale.ts";

/** From 1,000/s: the issue's rate is 4,000/s, so 500/s would spend a stage learning nothing. */
export const HOT_PRODUCT_MAX_PLAN: MaxRatePlan = {
  ...DEFAULT_MAX_RATE_PLAN,
  startRate: 1000,
  ceilingRate: 32_000,
};

export interface HotProductStage {
  offeredRate: number;
  acceptedRate: number;
  passed: boolean;
  sale: SaleResult;
  invariants: HotProductInvariants;
}

export interface HotProductMaxResult {
  criterion: string;
  stageDurationS: number;
  /** Highest accepted rate among passing stages; null if even the lowest stage failed. */
  maxAcceptedRate: number | null;
  stages: HotProductStage[];
}

export async function searchHotProductMax(
  target: SaleTarget,
  options: { stageDurationS: number; connections: number; slices: number; users: number; keyPrefix: string },
): Promise<HotProductMaxResult> {
  const stages: HotProductStage[] = [];
  for (
    let rate = nextRate(stages, HOT_PRODUCT_MAX_PLAN);
    rate !== null;
    rate = nextRate(stages, HOT_PRODUCT_MAX_PLAN)
  ) {
    const index = stages.length + 1;
    const { sale } = await runSale(target, {
      label: `max stage ${index} @ ${rate}/s`,
      stock: rate * options.stageDurationS,
      rate,
      connections: options.connections,
      slices: options.slices,
      users: options.users,
      keyPrefix: `${options.keyPrefix}-s${index}`,
    });
    const measures = stageMeasures(rate, sale);
    const stage: HotProductStage = {
      offeredRate: rate,
      acceptedRate: sale.acceptedRate,
      passed: stagePassed(measures),
      sale,
      invariants: collectChecks(checkSale(sale)),
    };
    stages.push(stage);
    log(
      `stage ${index}: offered ${rate}/s, accepted ${stage.acceptedRate}/s, avg ${sale.latencyMs?.mean ?? "n/a"} ms, ` +
        `p99 ${measures.p99Ms ?? "n/a"} ms, failures ${sale.failures}; ${stageVerdict(stage)}`,
    );
  }
  return {
    criterion: "order p99 < 50 ms, accepted >= 95% of offered, failures <= 0.1% of responses",
    stageDurationS: options.stageDurationS,
    maxAcceptedRate: maxAcceptedRate(stages),
    stages,
  };
}

const stageMeasures = (offeredRate: number, sale: SaleResult): StageMeasures => ({
  offeredRate,
  acceptedRate: sale.acceptedRate,
  p99Ms: sale.latencyMs?.p99 ?? null,
  failures: sale.failures,
  responses: sale.responses,
});

/**
 * The stage's two verdicts apart: its invariants, and the --max criterion with what it missed. ("invariants
 * hold: fail" read as if the invariants had failed when only p99 had.)
 */
export function stageVerdict(stage: HotProductStage): string {
  const invariants = stage.invariants.ok ? "invariants hold" : "invariants BROKEN";
  if (stage.passed) return `${invariants}; stage pass`;
  const missed = stageShortfalls(stageMeasures(stage.offeredRate, stage.sale));
  return `${invariants}; stage fail${missed.length > 0 ? ` (${missed.join(", ")})` : ""}`;
}
