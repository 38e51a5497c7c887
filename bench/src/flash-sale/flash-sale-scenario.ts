// `./floodgate bench flash-sale`: a limited drop behind a waiting room (flash-sale-run.ts), on a fresh Floodgate.
import { freshFloodgate } from "../harness/fresh-floodgate.ts";
import { resultHeader } from "../harness/result-head.ts";
import { finishRun } from "../harness/scenario-run.ts";
import type { Scenario, ScenarioContext, ScenarioOutcome } from "../scenario.ts";
import { FLASH_SALE_OPTION_SPECS, type FlashSaleOptions, toFlashSaleOptions } from "./flash-sale-options.ts";
import { describeSaleLoad, runSale } from "./flash-sale-run.ts";
import { type FlashSaleResult, summarizeFlashSale } from "./flash-sale-summary.ts";

export const flashSaleScenario: Scenario = {
  name: "flash-sale",
  description:
    "a waiting room: 20,000 shoppers join within 2 s, 10,000 watch over WebSockets and the rest poll, each pays once admitted at 2,000/s",
  options: FLASH_SALE_OPTION_SPECS,
  run: (values, context) => runFlashSale(toFlashSaleOptions(values), context),
};

async function runFlashSale(options: FlashSaleOptions, context: ScenarioContext): Promise<ScenarioOutcome> {
  const result: FlashSaleResult = {
    ...resultHeader("flash-sale", context, options, describeSaleLoad(options)),
    funding: null,
    customerTokens: null,
    sale: null,
    stockSale: null,
    roundTrips: null,
    checks: [],
    error: null,
  };
  return finishRun(
    result,
    async () => {
      await runSale(freshFloodgate(context), options, `flash-${context.stamp}`, result);
      if (result.checks.some((c) => c.ok === false))
        result.error = "some flash-sale checks fail (see checks)";
    },
    // runSale stops the system itself, whatever happens.
    async () => {},
    summarizeFlashSale,
  );
}
