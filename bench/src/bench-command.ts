// Entry of `./floodgate bench <scenario> [options]`: parse, run, print the summary and write
// bench/results/<timestamp>-<scenario>.json and its chart (.svg beside it). Exit codes: 0 ok, 1 the run failed,
// 2 bad usage. `./floodgate bench chart <result.json>` draws a result already written (chart-command.ts).
import { mkdirSync } from "node:fs";
import path from "node:path";
import { describeOptions, OptionError, parseOptions } from "./bench-options.ts";
import { CHART_USAGE, runChartCommand } from "./charts/chart-command.ts";
import { writeResultChart } from "./charts/chart-file.ts";
import { ChartInputError } from "./charts/result-node.ts";
import { REPO_ROOT, stopAllServices } from "./harness/child-service.ts";
import { calibrateCpu } from "./harness/cpu-calibration.ts";
import { runCleanups } from "./harness/interrupt-cleanup.ts";
import { log } from "./harness/progress-line.ts";
import { waitForQuietMachine } from "./harness/quiet-machine.ts";
import { fileTimestamp, RESULTS_DIR, writeResult } from "./harness/result-file.ts";
import type { Scenario } from "./scenario.ts";
import { findScenario, SCENARIOS } from "./scenario-registry.ts";

function usage(scenario?: Scenario): string {
  const scenarios = scenario ? [scenario] : SCENARIOS;
  return scenarios
    .map(
      (s) =>
        `Usage: ./floodgate bench ${s.name} [options]\n  ${s.description}\n\n${describeOptions(s.options)}`,
    )
    .join("\n\n")
    .concat(scenario ? "" : `\n\n${CHART_USAGE}`);
}

async function main(args: string[]): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    console.log(usage());
    return name === undefined ? 2 : 0;
  }
  if (name === "chart") return runChartCommand(rest);
  const scenario = findScenario(name);
  if (!scenario) {
    console.error(
      `unknown scenario ${JSON.stringify(name)}; known: ${SCENARIOS.map((s) => s.name).join(", ")}`,
    );
    return 2;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    console.log(usage(scenario));
    return 0;
  }
  const startedAt = new Date();
  const stamp = fileTimestamp(startedAt);
  let outcome: Awaited<ReturnType<Scenario["run"]>>;
  // A fresh clone has no bench/results (git keeps no empty folder) and the service log goes there first.
  mkdirSync(RESULTS_DIR, { recursive: true });
  try {
    const values = parseOptions(scenario.options, rest);
    const refusal = scenario.preflight?.(values) ?? null;
    if (refusal !== null) {
      console.error(`bench ${scenario.name}: ${refusal}`);
      return 1;
    }
    await waitForQuietMachine();
    // Before anything of the run starts: the machine's speed now, recorded with the result.
    const calibration = await calibrateCpu();
    log(
      `cpu calibration: ${calibration.oneThreadMs} ms on one thread, ${calibration.twoThreadsMs} ms on two at once; ` +
        `loopback round trip ${calibration.loopbackRoundTripUs} µs, memory read ${calibration.memoryReadNs} ns`,
    );
    outcome = await scenario.run(values, {
      startedAt,
      stamp,
      logFile: path.join(RESULTS_DIR, `${stamp}-${scenario.name}.log`),
      cpuCalibration: calibration,
    });
  } catch (error) {
    if (error instanceof OptionError) {
      console.error(`bench ${scenario.name}: ${error.message}\n\n${usage(scenario)}`);
      return 2;
    }
    throw error;
  }
  const file = writeResult(`${stamp}-${scenario.name}.json`, outcome.result);
  console.log(["", ...outcome.summary, `result: ${file}`, chartLine(file)].join("\n"));
  return outcome.error ? 1 : 0;
}

/** The chart is drawn from the JSON just written; a result it cannot draw (a run that failed early) keeps its
 * JSON and its exit code. */
function chartLine(resultFile: string): string {
  try {
    return `chart: ${path.relative(REPO_ROOT, writeResultChart(path.join(REPO_ROOT, resultFile)))}`;
  } catch (error) {
    if (!(error instanceof ChartInputError)) throw error;
    return `chart: not drawn (${error.message})`;
  }
}

// Children run in their own process groups, so Ctrl-C reaches only the bench: stop them before leaving.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the processes the bench started`);
    stopAllServices()
      .then(runCleanups)
      .finally(() => process.exit(130));
  });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  async (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    await stopAllServices();
    await runCleanups();
    process.exit(1);
  },
);
