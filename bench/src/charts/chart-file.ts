// A result file on disk to its SVG beside it (or where --out says): what `bench chart` and the end of every
// bench run call.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { renderResultChart } from "./result-chart.ts";
import { ChartInputError } from "./result-node.ts";

/** `<name>.json` -> `<name>.svg`. */
export const chartPathFor = (resultPath: string): string => `${resultPath.replace(/\.json$/, "")}.svg`;

/** Writes via a .tmp file and a rename, like the result itself; returns the SVG's path. */
export function writeResultChart(resultPath: string, outPath = chartPathFor(resultPath)): string {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(resultPath, "utf8"));
  } catch (error) {
    throw new ChartInputError(`${resultPath}: not readable as JSON (${(error as Error).message})`);
  }
  const svg = renderResultChart(json, resultPath);
  writeFileSync(`${outPath}.tmp`, svg);
  renameSync(`${outPath}.tmp`, outPath);
  return outPath;
}
