// The exactly-once audit of one fault's payments, per Idempotency-Key: each key's payment has an amount no other
// key has (its sequence number), so a row on a shard names its key. Pure, so it is tested.
import { parseOperationId } from "@floodgate/domain";
import type { KeyRecord } from "./shop-client.ts";

export interface PaymentRow {
  id: string;
  userId: string;
  amount: number;
  status: string;
}

export interface FaultAudit {
  keys: number;
  /** Keys answered 2xx at least once. */
  accepted: number;
  /** Accepted keys with no row: a 202 the system did not keep. */
  lost: number;
  /** Keys with more than one row: one payment applied twice (a retry made a second operation). */
  appliedTwice: number;
  /** Keys never answered 2xx whose payment was applied anyway (an answer lost on the way back: legal). */
  appliedWithoutAnswer: number;
  /** Keys whose 2xx answers named more than one id (the idempotency record was forgotten between attempts). */
  keysWithTwoIds: number;
  /** Rows whose id none of their key's answers named (e.g. a first attempt accepted, its answer lost, and the
   * retry given a new id). */
  rowsWithUnansweredId: number;
  /** Rows in the range whose user is not the key's: must be 0 (the amount would not name the key). */
  foreignRows: number;
  succeeded: number;
  failed: number;
  /** A few examples of each problem, for the person reading the result. */
  examples: { lost: number[]; appliedTwice: number[] };
  /** The keys applied twice among the examples, each row's id with the time it was minted (ms since the epoch,
   * from the id) and the ids the key's answers named: which attempt made which row. */
  appliedTwiceRows?: {
    seq: number;
    attempts: number;
    answered: string[];
    rows: { id: string; mintedMs: number }[];
  }[];
}

const EXAMPLES = 5;

export function auditFault(records: readonly KeyRecord[], rows: readonly PaymentRow[]): FaultAudit {
  const bySeq = new Map<number, PaymentRow[]>();
  for (const row of rows) {
    const list = bySeq.get(row.amount);
    if (list) list.push(row);
    else bySeq.set(row.amount, [row]);
  }
  const audit: FaultAudit = {
    keys: records.length,
    accepted: 0,
    lost: 0,
    appliedTwice: 0,
    appliedWithoutAnswer: 0,
    keysWithTwoIds: 0,
    rowsWithUnansweredId: 0,
    foreignRows: 0,
    succeeded: 0,
    failed: 0,
    examples: { lost: [], appliedTwice: [] },
    appliedTwiceRows: [],
  };
  const known = new Set(records.map((record) => record.seq));
  for (const row of rows) if (!known.has(row.amount)) audit.foreignRows++;
  for (const record of records) {
    const keyRows = (bySeq.get(record.seq) ?? []).filter((row) => {
      if (row.userId === record.userId) return true;
      audit.foreignRows++;
      return false;
    });
    if (record.accepted) audit.accepted++;
    if (record.ids.length > 1) audit.keysWithTwoIds++;
    for (const row of keyRows) {
      if (record.accepted && !record.ids.includes(row.id)) audit.rowsWithUnansweredId++;
      if (row.status === "succeeded") audit.succeeded++;
      else audit.failed++;
    }
    if (keyRows.length > 1) {
      audit.appliedTwice++;
      if (audit.examples.appliedTwice.length < EXAMPLES) {
        audit.examples.appliedTwice.push(record.seq);
        audit.appliedTwiceRows!.push({
          seq: record.seq,
          attempts: record.attempts,
          answered: record.ids,
          rows: keyRows.map((row) => ({ id: row.id, mintedMs: parseOperationId(row.id)?.createdAtMs ?? -1 })),
        });
      }
    }
    if (record.accepted && keyRows.length === 0) {
      audit.lost++;
      if (audit.examples.lost.length < EXAMPLES) audit.examples.lost.push(record.seq);
    }
    if (!record.accepted && keyRows.length > 0) audit.appliedWithoutAnswer++;
  }
  return audit;
}
