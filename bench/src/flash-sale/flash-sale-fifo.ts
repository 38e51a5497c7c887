// First in, first out, checked two ways against the room's own records (its tickets hash: sequence number and
// admission time of every ticket):
// - by sequence: ordered by the number each join drew, admission times never go back (admissions in one tick
//   share a time; ties are not inversions);
// - as the shoppers saw it: a shopper whose join was answered before another's was even sent joined first,
//   so must have the lower sequence number (a join built earlier than it was sent only makes this laxer).
//   Joins before the room's startsAt are left out: the pre-queue is shuffled at the start, on purpose.
import type { Shopper } from "./flash-sale-crowd.ts";

export interface TicketRecord {
  ticketId: string;
  status: string;
  seq: number;
  admittedAt: number | null;
}

export interface FifoAudit {
  admitted: number;
  seqInversions: number;
  joinOrderInversions: number;
  /** Shoppers the join-order check covered (those who joined after startsAt, or all without one). */
  joinOrderChecked: number;
  firstAdmittedAt: number | null;
  lastAdmittedAt: number | null;
}

export function parseTicketRecords(hash: Record<string, string>): TicketRecord[] {
  return Object.entries(hash).map(([ticketId, record]) => {
    const [status = "", , seq = "", , admittedAt = ""] = record.split("|");
    return { ticketId, status, seq: Number(seq || 0), admittedAt: admittedAt ? Number(admittedAt) : null };
  });
}

export function auditFifo(
  records: readonly TicketRecord[],
  shoppers: readonly Shopper[],
  startsAt: number | null = null,
): FifoAudit {
  const admitted = records.filter((r) => r.admittedAt !== null).sort((a, b) => a.seq - b.seq);
  let seqInversions = 0;
  for (let i = 1; i < admitted.length; i++)
    if (admitted[i]!.admittedAt! < admitted[i - 1]!.admittedAt!) seqInversions++;

  const seqOf = new Map(records.map((r) => [r.ticketId, r.seq]));
  const joined = shoppers.filter(
    (s) => s.ticketId !== null && seqOf.has(s.ticketId) && (startsAt === null || s.joinBuiltAt >= startsAt),
  );
  const byAnswer = [...joined].sort((a, b) => a.joinAnsweredAt - b.joinAnsweredAt);
  const bySend = [...joined].sort((a, b) => a.joinBuiltAt - b.joinBuiltAt);
  let joinOrderInversions = 0;
  let answered = 0;
  let highestSeqAnswered = 0;
  for (const shopper of bySend) {
    while (answered < byAnswer.length && byAnswer[answered]!.joinAnsweredAt < shopper.joinBuiltAt) {
      highestSeqAnswered = Math.max(highestSeqAnswered, seqOf.get(byAnswer[answered]!.ticketId!)!);
      answered++;
    }
    if (highestSeqAnswered > seqOf.get(shopper.ticketId!)!) joinOrderInversions++;
  }
  return {
    admitted: admitted.length,
    seqInversions,
    joinOrderInversions,
    joinOrderChecked: joined.length,
    firstAdmittedAt: admitted.reduce<number | null>(
      (m, r) => (m === null || r.admittedAt! < m ? r.admittedAt! : m),
      null,
    ),
    lastAdmittedAt: admitted.reduce<number | null>(
      (m, r) => (m === null || r.admittedAt! > m ? r.admittedAt! : m),
      null,
    ),
  };
}
