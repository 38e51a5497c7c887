// `./floodgate bench chart <result.json>... [--out file.svg]`: draws each result as an SVG beside it, from
// the JSON alone (no browser, no run). Exit codes: 0 drawn, 1 a file could not be charted, 2 bad usage.
import { chartPathFor, writeResultChart } from "./chart-file.ts";
import { ChartInputError } from "./result-node.ts";

export const CHART_USAGE = `Usage: ./floodgate bench chart <result.json>... [--out file.svg]
  Draws a bench result (accepted/s and p50/p99 over time or per stage; paired targets side by side) as an SVG
  beside its JSON (<same name>.svg), or at --out (one result only). Every bench run does this after writing its
  result.`;

export function runChartCommand(args: readonly string[]): number {
  if (args.includes("--help") || args.includes("-h")) {
    console.log(CHART_USAGE);
    return 0;
  }
  const files: string[] = [];
  let out: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--out" || arg.startsWith("--out=")) {
      out = arg === "--out" ? args[++i] : arg.slice("--out=".length);
      if (!out) return usageError("--out needs a file name");
    } else if (arg.startsWith("--")) {
      return usageError(`unknown option ${arg}`);
    } else files.push(arg);
  }
  if (files.length === 0) return usageError("name at least one result file");
  if (out !== undefined && files.length > 1) return usageError("--out takes one result file");
  let failed = 0;
  for (const file of files) {
    try {
      console.log(`chart: ${writeResultChart(file, out ?? chartPathFor(file))}`);
    } catch (error) {
      if (!(error instanceof ChartInputError)) throw error;
      console.error(`bench chart: ${error.message}`);
      failed++;
    }
  }
  return failed > 0 ? 1 : 0;
}

function usageError(message: string): number {
  console.error(`bench chart: ${message}\n\n${CHART_USAGE}`);
  return 2;
}
