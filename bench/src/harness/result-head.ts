// What every scenario's result and printed summary open with: what ran (scenario, settings, load generator),
// on which commit and machine, with which services' durability settings, and a warning when something else was
// already using the cpus. One head for every scenario, so a result read months later says the same things
// whichever scenario wrote it.
import path from "node:path";
import type { ScenarioContext } from "../scenario.ts";
import { REPO_ROOT } from "./child-service.ts";
import type { CpuCalibration } from "./cpu-calibration.ts";
import { type CommitInfo, commitInfo, machineInfo } from "./result-file.ts";
import type { ServiceSettings } from "./service-settings.ts";

/** The machine as a result records it; the calibration is absent from result files written before it existed. */
export type ResultMachine = ReturnType<typeof machineInfo> & { cpuCalibration?: CpuCalibration | null };

/** The fields every scenario's result type shares; each adds its own phases. */
export interface ResultHead<S extends string> extends CommitInfo {
  scenario: S;
  startedAt: string;
  finishedAt: string | null;
  machine: ResultMachine;
  services: ServiceSettings | null;
  settings: Record<string, unknown>;
  loadGenerator: string;
  /** Set when a phase failed (scenario-run.ts finishRun). */
  error: string | null;
}

/** `settings` are the scenario's options; the system's environment is added once it runs. */
export function resultHeader<S extends string, O extends object>(
  scenario: S,
  context: ScenarioContext,
  options: O,
  loadGenerator: string,
) {
  return {
    scenario,
    startedAt: context.startedAt.toISOString(),
    finishedAt: null as string | null,
    ...commitInfo(),
    machine: { ...machineInfo(), cpuCalibration: context.cpuCalibration ?? null },
    services: null as ServiceSettings | null,
    // Record: each scenario's result type declares its settings loosely (the options plus the environment).
    settings: {
      ...options,
      systemEnvironment: null,
      logFile: path.relative(REPO_ROOT, context.logFile),
    } as Record<string, unknown> & O & { systemEnvironment: Record<string, string> | null },
    loadGenerator,
  };
}

/** The lines a scenario's summary opens with. */
export function summaryHead(result: ResultHead<string>): string[] {
  return [
    headerLine(result),
    servicesLine(result.services),
    ...busyWarning(result.machine.loadAverageAtStart[0] ?? 0),
  ];
}

function headerLine(result: ResultHead<string>): string {
  const m = result.machine;
  const calibration = m.cpuCalibration
    ? `, cpu calibration ${m.cpuCalibration.oneThreadMs} ms one thread / ${m.cpuCalibration.twoThreadsMs} ms two` +
      (m.cpuCalibration.loopbackRoundTripUs === undefined
        ? ""
        : `, loopback ${m.cpuCalibration.loopbackRoundTripUs} µs, memory read ${m.cpuCalibration.memoryReadNs} ns`)
    : "";
  return `${result.scenario} bench, commit ${result.commit ?? "none"}${result.dirty ? " (uncommitted changes)" : ""}, ${m.cpuCount} x ${m.cpuModel}, ${m.memoryGiB} GiB, node ${m.node}${calibration}`;
}

/** A load average at start above 1 means something else was using the cpus the bench needs. */
function busyWarning(loadAverage: number): string[] {
  return loadAverage >= 1
    ? [
        `WARNING: 1-minute load average was ${loadAverage} when the run started: other work shares the cpus, figures are unreliable`,
      ]
    : [];
}

function servicesLine(services: ServiceSettings | null): string {
  if (services === null) return "services: unknown";
  const show = (settings: Record<string, string>) =>
    Object.entries(settings)
      .map(([name, value]) => `${name} ${value || '""'}`)
      .join(", ");
  return `postgres: ${show(services.postgres)}; redis: ${show(services.redis)}`;
}
