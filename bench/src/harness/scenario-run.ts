// How every scenario's run ends (the fields its result opens with: result-head.ts): a thrown error becomes the
// result's `error` (the partial result is still written), the cleanup always runs, then the end time and the
// printed summary.
import type { ScenarioOutcome } from "../scenario.ts";

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
