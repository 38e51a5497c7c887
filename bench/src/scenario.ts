// The contract between `./floodgate bench <scenario>` and a scenario: declared options, and a run that
// returns the JSON result plus the lines to print.
import type { OptionSpec, OptionValues } from "./bench-options.ts";
import type { CpuCalibration } from "./harness/cpu-calibration.ts";

export interface ScenarioContext {
  startedAt: Date;
  /** File-name timestamp shared by the run's result and log files. */
  stamp: string;
  logFile: string;
  /** The machine's speed when the run started (cpu-calibration.ts). */
  cpuCalibration?: CpuCalibration;
}

export interface ScenarioOutcome {
  result: Record<string, unknown>;
  summary: string[];
  /** Set when a phase failed: the partial result is still written, and the command exits non-zero. */
  error?: string;
}

export interface Scenario {
  name: string;
  description: string;
  options: readonly OptionSpec[];
  /** What stops the run before anything starts (e.g. a machine that cannot make the hosts it asks for), in
   * words the command prints before exiting non-zero; null when it can run. */
  preflight?(values: OptionValues): string | null;
  run(values: OptionValues, context: ScenarioContext): Promise<ScenarioOutcome>;
}
