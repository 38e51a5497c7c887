// `./floodgate bench flash-sale`: a limited drop behind a waiting room (flash-sale-run.ts), on a fresh Floodgate;
// with --compare-checkout, the same sale round after round on this checkout's system and another checkout's
// (flash-sale-comparison.ts).
import { openFilesLimit } from "@floodgate/config";
import { comparedCheckoutProblem } from "../harness/compared-checkout.ts";
import { freshFloodgate } from "../harness/fresh-floodgate.ts";
import { resultHeader } from "../harness/result-head.ts";
import { finishRun } from "../harness/scenario-run.ts";
import type { Scenario, ScenarioContext, ScenarioOutcome } from "../scenario.ts";
import { crowdFilesProblem } from "./crowd-parts.ts";
import { runFlashSaleComparison } from "./flash-sale-comparison.ts";
import { FLASH_SALE_OPTION_SPECS, type FlashSaleOptions, toFlashSaleOptions } from "./flash-sale-options.ts";
import { describeSaleLoad, runSale } from "./flash-sale-run.ts";
import { type FlashSaleResult, noSaleMeasures, summarizeFlashSale } from "./flash-sale-summary.ts";

export const flashSaleScenario: Scenario = {
  name: "flash-sale",
  description:
    "a waiting room: 20,000 shoppers join within 2 s, 10,000 watch over WebSockets and the rest poll, each pays once admitted at 2,000/s",
  options: FLASH_SALE_OPTION_SPECS,
  // A checkout that cannot run, or a crowd that would run out of open files, is refused before the machine is
  // calibrated or anything starts.
  preflight: (values) => {
    const checkout = values["compare-checkout"];
    const checkoutProblem = typeof checkout === "string" ? comparedCheckoutProblem(checkout) : null;
    return checkoutProblem ?? crowdFilesProblem(toFlashSaleOptions(values), openFilesLimit());
  },
  run: (values, context) => {
    const options = toFlashSaleOptions(values);
    return options.compareCheckout === null
      ? runFlashSale(options, context)
      : runFlashSaleComparison(options, context);
  },
};

async function runFlashSale(options: FlashSaleOptions, context: ScenarioContext): Promise<ScenarioOutcome> {
  const result: FlashSaleResult = {
    ...resultHeader("flash-sale", context, options, describeSaleLoad(options)),
    ...noSaleMeasures(),
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
