// The title block every chart opens with, from the result's head (result-head.ts): which scenario, the command
// that ran it (rebuilt from the recorded options), the commit and the machine.
import type { OptionSpec } from "../bench-options.ts";
import { COUPON_DROP_OPTION_SPECS } from "../coupon-drop/coupon-drop-options.ts";
import { FAULTS_OPTION_SPECS } from "../faults/faults-options.ts";
import { FLASH_SALE_OPTION_SPECS } from "../flash-sale/flash-sale-options.ts";
import { HOT_PRODUCT_OPTION_SPECS } from "../hot-product/hot-product-options.ts";
import { PAYMENTS_OPTION_SPECS } from "../payments/payments-options.ts";
import type { ResultNode } from "./result-node.ts";

const OPTION_SPECS: Record<string, readonly OptionSpec[]> = {
  payments: PAYMENTS_OPTION_SPECS,
  "coupon-drop": COUPON_DROP_OPTION_SPECS,
  "hot-product": HOT_PRODUCT_OPTION_SPECS,
  "flash-sale": FLASH_SALE_OPTION_SPECS,
  faults: FAULTS_OPTION_SPECS,
};

const camel = (name: string): string => name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** `./floodgate bench payments --max --redis cluster`: the options whose recorded value differs from the default. */
export function commandLine(scenario: string, settings: ResultNode): string {
  const words = [`./floodgate bench ${scenario}`];
  for (const spec of OPTION_SPECS[scenario] ?? []) {
    // A repeated option is recorded under its plural (--peer raw --peer bullmq -> peers).
    const value =
      settings.at(camel(spec.name)).value ??
      settings.at(spec.name).value ??
      (spec.kind === "repeated" ? settings.at(`${camel(spec.name)}s`).value : undefined);
    if (value === undefined || value === null || value === false) continue;
    if (spec.kind === "flag") words.push(`--${spec.name}`);
    else if (spec.kind === "repeated" && Array.isArray(value)) {
      for (const item of value) words.push(`--${spec.name} ${item}`);
    } else if (spec.kind === "int" && value === spec.default) continue;
    else if (spec.kind === "list" && Array.isArray(value)) {
      // Every choice in order is what the option's absence means.
      if (value.join(",") !== spec.choices.join(",")) words.push(`--${spec.name} ${value.join(",")}`);
    } else if (typeof value !== "object") words.push(`--${spec.name} ${value}`);
  }
  return words.join(" ");
}

export function chartTitle(result: ResultNode): { title: string; subtitle: string[] } {
  const scenario = result.string("scenario");
  const machine = result.at("machine");
  const load = machine.at("loadAverageAtStart").value;
  const loadAtStart = Array.isArray(load) && typeof load[0] === "number" ? load[0] : 0;
  const commit = result.at("commit").value ?? "none";
  const started = result
    .string("startedAt")
    .replace("T", " ")
    .replace(/:\d\d\.\d+Z$/, " UTC");
  return {
    title: `${scenario} bench`,
    subtitle: [
      ...wrap(commandLine(scenario, result.at("settings")), 120),
      `commit ${commit}${result.at("dirty").value === true ? " (uncommitted changes)" : ""}, started ${started}` +
        (result.at("error").present
          ? `; the run failed: ${String(result.at("error").value).slice(0, 60)}`
          : ""),
      `${machine.number("cpuCount")} x ${machine.string("cpuModel")}, ${machine.at("memoryGiB").value ?? "?"} GiB, ` +
        `node ${machine.at("node").value ?? "?"}, load average at start ${loadAtStart}` +
        (loadAtStart >= 1 ? " (the machine was busy)" : ""),
    ],
  };
}

/** Lines of at most `width` characters, broken at spaces (the page is a fixed 800 px). */
export function wrap(line: string, width: number): string[] {
  const lines: string[] = [];
  let current = "";
  for (const word of line.split(" ")) {
    if (current !== "" && current.length + 1 + word.length > width) {
      lines.push(current);
      current = `    ${word}`;
    } else current = current === "" ? word : `${current} ${word}`;
  }
  return [...lines, current];
}
