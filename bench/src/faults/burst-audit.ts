// The overload burst's audit, by count (its requests are never retried, so no key is kept): every id answered
// 2xx must be on exactly one shard, once; a row of the burst's users and amount that no 2xx named can only
// come from a request whose outcome the generator does not know (timed out, or its connection failed), so
// there may be at most as many as those. Pure, so it is tested.
import type { BurstIdList } from "./burst-id-list.ts";

export interface BurstAudit {
  /** Ids answered 2xx (an id answered twice is counted once, and in duplicateAnswers). */
  accepted: number;
  duplicateAnswers: number;
  /** Rows of the burst on the shards. */
  applied: number;
  /** 2xx ids with no row. */
  lost: number;
  /** Ids with more than one row (on two shards: the primary key keeps one shard to one). */
  twice: number;
  /** Rows no 2xx named. */
  appliedWithoutAnswer: number;
  /** Requests timed out or cut by a socket error: applied or not, the client cannot know. */
  unknownOutcome: number;
  /** appliedWithoutAnswer <= unknownOutcome: nothing refused (429/503/4xx) was applied. */
  withinUnknown: boolean;
  examples: { lost: string[]; twice: string[] };
}

const EXAMPLES = 5;

export function auditBurst(ids: BurstIdList, rowIds: readonly string[], unknownOutcome: number): BurstAudit {
  const rows = new Map<string, number>();
  for (const id of rowIds) rows.set(id, (rows.get(id) ?? 0) + 1);
  const answered = new Set<string>();
  const audit: BurstAudit = {
    accepted: 0,
    duplicateAnswers: 0,
    applied: rowIds.length,
    lost: 0,
    twice: 0,
    appliedWithoutAnswer: 0,
    unknownOutcome,
    withinUnknown: true,
    examples: { lost: [], twice: [] },
  };
  for (let i = 0; i < ids.length; i++) {
    const id = ids.at(i);
    if (answered.has(id)) {
      audit.duplicateAnswers++;
      continue;
    }
    answered.add(id);
    audit.accepted++;
    if (!rows.has(id)) {
      audit.lost++;
      if (audit.examples.lost.length < EXAMPLES) audit.examples.lost.push(id);
    }
  }
  for (const [id, n] of rows) {
    if (n > 1) {
      audit.twice++;
      if (audit.examples.twice.length < EXAMPLES) audit.examples.twice.push(id);
    }
    if (!answered.has(id)) audit.appliedWithoutAnswer++;
  }
  audit.withinUnknown = audit.appliedWithoutAnswer <= unknownOutcome;
  return audit;
}
