// What every scenario's run does around its phases: the fields its result opens with, and the ending: a
// thrown error becomes the result's `error` (the partial result is still written), the cleanup always runs,
// then the end time and the printed summary.
import path from "node:path";
import type { ScenarioContext, ScenarioOutcome } from "../scenario.ts";
import { REPO_ROOT } from "./child-service.ts";
import { commitInfo, machineInfo } from "./result-file.ts";
import type { ServiceSettings } from "./service-settings.ts";

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

/** fetch's own message ("fetch failed") says nothing: its cause names the socket error. */
export function errorMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message;
}

export async function finishRun<R extends { error: string | null; finishedAt: string | null }>(
  result: R,
  phases: () => Promise<void>,
  cleanup: () => Promise<void>,
  summarize: (result: R) => string[],
): Promise<ScenarioOutcome> {
  try {
    await phases();
  } catch (error) {
    result.error = errorMessage(error);
  } finally {
    await cleanup();
  }
  result.finishedAt = new Date().toISOString();
  return {
    result: { ...result },
    summary: summarize(result),
    ...(result.error ? { error: result.error } : {}),
  };
}
