// `start` reconciles after the migrations and before any intake or worker runs: nothing moves yet, so Redis
// counters lost or left behind (a Redis restarted without its data, a crash between Postgres and Redis) are
// rebuilt from Postgres before the first order. Drift it cannot repair is a loud warning, not a refusal: the
// system still runs, and a person decides.
import { findingLine, queueLine, summaryLine } from "@floodgate/reconcile";
import { type ReconcileTarget, runReconcile } from "./run-reconcile.ts";

export async function reconcileAtStart(target: ReconcileTarget, log: (line: string) => void): Promise<void> {
  const warn = (line: string) => process.stderr.write(`[floodgate] WARNING ${line}\n`);
  try {
    const report = await runReconcile(target, {
      dryRun: false,
      progress: (line) => log(`reconcile ${line}`),
    });
    if (report.redisSkipped !== null) log(`reconcile ${queueLine(report)}`);
    for (const finding of report.findings) log(`reconcile ${findingLine(finding)}`);
    log(`reconcile ${summaryLine(report)}`);
    if (report.unrepaired > 0) {
      warn(`reconcile left ${report.unrepaired} drifted item(s) unrepaired (listed above).`);
      warn(
        "Postgres-side drift needs a person: starting anyway; `./floodgate reconcile --dry-run` shows it again.",
      );
    }
  } catch (error) {
    warn(`reconcile could not run (${(error as Error).message}); starting without it.`);
  }
}
