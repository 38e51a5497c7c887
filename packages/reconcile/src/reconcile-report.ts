// The report as lines for a terminal or a log, and the exit code the CLI answers with.
import { type DriftFinding, NEEDS_HUMAN } from "./drift-finding.ts";
import type { ReconcileReport } from "./reconcile.ts";

export function reportLines(report: ReconcileReport): string[] {
  const lines = [queueLine(report), ...report.findings.map(findingLine), summaryLine(report)];
  if (report.findings.some((finding) => finding.outcome === "needs_human")) {
    lines.push(
      "postgres-side drift is not repaired automatically: Postgres is the truth Redis is rebuilt from",
    );
  }
  return lines;
}

export function queueLine(report: ReconcileReport): string {
  return report.redisSkipped === null
    ? "queue drained: comparing Redis with Postgres"
    : `Redis comparisons skipped, ${report.redisSkipped}; checked Postgres only`;
}

export function findingLine(finding: DriftFinding): string {
  return `drift ${finding.subject} ${finding.id} ${finding.kind}: ${finding.detail} -> ${outcomeText(finding)}`;
}

/** The summary, with the "reconcile drift" figure: items found drifted. */
export function summaryLine(report: ReconcileReport): string {
  const repaired = report.dryRun
    ? `would repair ${report.findings.filter((f) => f.outcome === "would_repair").length} (dry run: nothing written)`
    : `repaired ${report.repaired}`;
  return (
    `summary: products checked ${report.productsChecked}, coupons checked ${report.couponsChecked}, ` +
    `paid orders ${report.paidOrders.wallet} from wallets and ${report.paidOrders.provider} at providers, ` +
    `drift found ${report.drift}, ${repaired}, not repaired ${report.unrepaired}` +
    (report.redisSkipped === null ? "" : " (Redis not compared)")
  );
}

/** 0 clean or repaired, 1 drift left (in a dry run: any drift). */
export function reconcileExitCode(report: ReconcileReport): 0 | 1 {
  if (report.dryRun) return report.drift > 0 ? 1 : 0;
  return report.unrepaired > 0 ? 1 : 0;
}

function outcomeText(finding: DriftFinding): string {
  switch (finding.outcome) {
    case "repaired":
      return `repaired (${finding.repair!.summary})`;
    case "would_repair":
      return `would repair (${finding.repair!.summary})`;
    case "needs_human":
      return `not repaired, needs a human: ${NEEDS_HUMAN[finding.kind] ?? "Postgres-side"}`;
    default:
      return finding.notApplied ? `not repaired: ${finding.notApplied}` : "not repaired";
  }
}
