// Every scenario `./floodgate bench` knows. A new one is a file exporting a Scenario, added here.
import { admissionTokensScenario } from "./admission-tokens/guarded-requests-scenario.ts";
import { couponDropScenario } from "./coupon-drop/coupon-drop-scenario.ts";
import { faultsScenario } from "./faults/faults-scenario.ts";
import { flashSaleScenario } from "./flash-sale/flash-sale-scenario.ts";
import { hotProductScenario } from "./hot-product/hot-product-scenario.ts";
import { paymentsScenario } from "./payments/payments-scenario.ts";
import type { Scenario } from "./scenario.ts";

export const SCENARIOS: readonly Scenario[] = [
  paymentsScenario,
  couponDropScenario,
  hotProductScenario,
  flashSaleScenario,
  faultsScenario,
  admissionTokensScenario,
];

export function findScenario(name: string): Scenario | undefined {
  return SCENARIOS.find((scenario) => scenario.name === name);
}
