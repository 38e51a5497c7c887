// `./floodgate dlq list`: one row per dead letter, oldest first, as a table or as JSON lines' array.
import { type DeadLetterView, isoTime } from "./dead-letter-view.ts";

const COLUMNS = ["ID", "KIND", "USER", "REASON", "FIRST FAILURE", "LAST FAILURE"] as const;
/** A reason can be a long driver message: the table keeps its start, `show` and --json keep all of it. */
const REASON_WIDTH = 60;

function row(view: DeadLetterView): string[] {
  const reason = view.letter.reason.replace(/\s+/g, " ");
  return [
    view.letter.operationId,
    view.kind,
    view.userId,
    reason.length > REASON_WIDTH ? `${reason.slice(0, REASON_WIDTH - 1)}…` : reason,
    isoTime(view.letter.firstFailedAt),
    isoTime(view.deadLetteredAt),
  ];
}

export function tableLines(views: DeadLetterView[]): string[] {
  const rows = [[...COLUMNS], ...views.map(row)];
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd(),
  );
}

/** The machine-readable list: every field of each entry, the message decoded when it decodes. */
export function listJson(views: DeadLetterView[]): string {
  return JSON.stringify(
    views.map((view) => ({
      id: view.letter.operationId,
      deadLetterId: view.letter.deadLetterId,
      kind: view.kind,
      userId: view.userId,
      reason: view.letter.reason,
      deliveries: view.letter.deliveries,
      partition: view.letter.partition,
      entryId: view.letter.entryId,
      acceptedAt: view.acceptedAt === null ? null : isoTime(view.acceptedAt),
      firstFailureAt: view.letter.firstFailedAt === null ? null : isoTime(view.letter.firstFailedAt),
      lastFailureAt: isoTime(view.deadLetteredAt),
      message: view.decoded ?? view.letter.message,
    })),
    null,
    2,
  );
}
