// The bench is a command (bench-command.ts); this entry exposes its scenario registry and pure helpers.
export { OptionError, type OptionSpec, parseOptions } from "./bench-options.ts";
export { type LatencySummary, percentile, summarizeLatencies } from "./harness/latency-summary.ts";
export { findScenario, SCENARIOS } from "./scenario-registry.ts";
